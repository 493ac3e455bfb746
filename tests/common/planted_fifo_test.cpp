// A FIFO planted under a name hpcsens opens (another user's, in a sticky shared directory) must be
// refused at once, never waited on: opening a FIFO blocks until the other end comes, and root's
// sweep blocked that way held the machine-wide knob lock for good. Each open runs in a child
// process that must end by itself; a hang is reported, not waited out.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include "common/errors.h"
#include "common/safe_file.h"

namespace fs = std::filesystem;
using namespace hpcsens::safe_file;

namespace {

// f's result from a child process, or "HUNG" when the child had not ended after 30 s (it is then
// killed). Generous: a refusal takes microseconds, a blocked open forever.
std::string in_child(const std::function<std::string()>& f) {
  int p[2];
  if (::pipe(p) != 0) return "pipe failed";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(p[0]);
    std::string r;
    try {
      r = f();
    } catch (const std::exception& e) {
      r = std::string("threw: ") + e.what();
    }
    (void)!::write(p[1], r.data(), r.size());
    ::_exit(0);
  }
  ::close(p[1]);
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  int status = 0;
  bool ended = false;
  while (!(ended = ::waitpid(pid, &status, WNOHANG) == pid) && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  if (!ended) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    ::close(p[0]);
    return "HUNG";
  }
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(p[0], buf, sizeof buf)) > 0) out.append(buf, std::size_t(n));
  ::close(p[0]);
  return out;
}

class PlantedFifo : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/hpcsens_fifo_XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    ASSERT_EQ(::mkfifo((dir_ / "journal.jsonl").c_str(), 0666), 0);
    ASSERT_EQ(open_dir(dir_.string(), false, &d_), "");
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string fifo() const { return (dir_ / "journal.jsonl").string(); }
  fs::path dir_;
  Dir d_;
};

TEST_F(PlantedFifo, AppendingRefusesItWithoutAReader) {
  const std::string r = in_child([&] {
    int fd = -1;
    return open_append(d_, "journal.jsonl", &fd);
  });
  EXPECT_NE(r, "HUNG") << "open_append blocked on a FIFO";
  EXPECT_NE(r.find("journal.jsonl: is a FIFO (named pipe), not a regular file"), std::string::npos) << r;
}

// With a reader at the other end the open itself succeeds: the type is checked on the descriptor
// before anything is written.
TEST_F(PlantedFifo, AppendingRefusesItWithAReaderAndWritesNothing) {
  const int reader = ::open(fifo().c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  const std::string r = in_child([&] {
    int fd = -1;
    std::string err = open_append(d_, "journal.jsonl", &fd);
    if (err.empty()) err = "opened; wrote: " + write_all(fd, "line\n", "journal");
    return err;
  });
  EXPECT_NE(r.find("is a FIFO"), std::string::npos) << r;
  char c;
  EXPECT_LE(::read(reader, &c, 1), 0) << "a byte reached the other user's reader";
  ::close(reader);
}

TEST_F(PlantedFifo, LockFilesAreRefusedAndTheOwnerIsNamed) {
  ASSERT_EQ(::chown(fifo().c_str(), 65534, 65534), 0);
  const std::string r = in_child([&] {
    int fd = -1;
    return open_private(d_, "journal.jsonl", O_RDWR | O_CREAT, 0600, &fd);
  });
  EXPECT_NE(r.find("is a FIFO"), std::string::npos) << r;
  EXPECT_NE(r.find("owned by uid 65534"), std::string::npos) << r;
}

TEST_F(PlantedFifo, ReadersRefuseItWithoutBlocking) {
  for (const auto& read : std::vector<std::function<std::string()>>{
           [&] { return read_input_file(fifo()); }, [&] { return read_own_file(fifo(), 1024); },
           [&] { return read_input_head(fifo(), 16); }}) {
    const std::string r = in_child(read);
    EXPECT_NE(r, "HUNG");
    EXPECT_NE(r.find("threw: " + fifo() + ": is a FIFO (named pipe), not a regular file"), std::string::npos) << r;
  }
}

TEST_F(PlantedFifo, TheHeadOfARegularFileIsItsFirstBytes) {
  std::ofstream(dir_ / "r.json") << "  {\"schema\": 1}";
  EXPECT_EQ(read_input_head((dir_ / "r.json").string(), 3), "  {");
  EXPECT_EQ(read_input_head((dir_ / "r.json").string(), 100), "  {\"schema\": 1}");
  EXPECT_EQ(file_type_problem(S_IFREG | 0644), "");
  EXPECT_EQ(file_type_problem(S_IFSOCK), "is a socket, not a regular file");
}

}  // namespace
