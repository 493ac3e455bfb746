// MPMD jobs beyond `a : b` on the command line, end to end with real mpirun: an Open MPI appfile
// (`mpirun --app FILE`, whose contexts get none of the command line's -x settings) measured in
// every context through a private rewritten copy; appfiles hpcsens cannot read refused with file
// and line before the job; and app contexts built against different MPIs said, the job run
// unmeasured with its exit status.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "process.h"
#include "run_fixture.h"

namespace hpcsens::testing {
namespace {

namespace fs = std::filesystem;
using Args = std::vector<std::string>;

const std::string kExit = std::string(HPCSENS_EXAMPLES_DIR) + "/example_exit";

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class AppfileRun : public HpcsensRunTest {
 protected:
  std::string appfile(const std::string& text) {
    const std::string path = out_.string() + "-appfile";
    std::ofstream(path, std::ios::binary) << text;
    files_.push_back(path);
    return path;
  }
  void TearDown() override {
    for (const auto& f : files_) fs::remove_all(f);
    HpcsensRunTest::TearDown();
  }
  std::vector<std::string> files_;
};

TEST_F(AppfileRun, TwoContextAppfileIsMeasuredInEveryContext) {
  const std::string text = "# two contexts, different exit statuses\n-np 1 " + kExit + " 0\n\n-np 1 " + kExit +
                           " 5   # the second context\n";
  const std::string path = appfile(text);
  const Args job = {"mpirun", "--oversubscribe", "--app", path};
  const auto plain = run_process(job, kTimeout);
  const auto wrapped = wrap(job);
  ASSERT_FALSE(plain.timed_out);
  ASSERT_FALSE(wrapped.timed_out) << "hpcsens run hung on an appfile job";
  EXPECT_EQ(plain.exit_status, 5);
  EXPECT_EQ(wrapped.exit_status, plain.exit_status) << wrapped.err;
  std::printf("appfile job: plain %.2f s, through hpcsens run %.2f s\n", plain.seconds, wrapped.seconds);
  const auto rec = record(wrapped);
  EXPECT_EQ(rec.value("complete", false), true) << wrapped.err;
  EXPECT_EQ(rec.at("job").value("nranks", 0), 2);
  // Each context's rank ran with the preload: its calls were counted.
  expect_calls(rec, {{"MPI_Comm_rank", 1}, {"MPI_Barrier", 1}});
  EXPECT_EQ(slurp(path), text) << "the user's appfile is not touched";
  for (const auto& e : fs::directory_iterator(out_))
    EXPECT_EQ(e.path().filename().string().find(".appfile"), std::string::npos) << "copy left behind: " << e.path();
}

// Open MPI aborts on an appfile line over 8184 bytes (measured, 4.1.4). The preload's settings
// travel in mpirun's mca_base_env_list, not in the lines, so every line plain mpirun runs runs
// measured, however close to the limit (an 8,090-byte line was run unmeasured while the settings
// went in front of each line). Only a line with its own -x (Open MPI refuses -x beside
// mca_base_env_list) takes the settings in front; one they would push over the limit is not run
// broken: the job runs unmeasured with a warning naming the limit and why, and hpcsens exits 74.
TEST_F(AppfileRun, LinesNearOpenMpisLimitStillRunMeasured) {
  auto line_of = [&](std::size_t bytes, const std::string& start) {
    std::string l = start + "-np 1 " + kExit + " 0";
    while (l.size() + 6 <= bytes) l += " xxxxx";
    while (l.size() < bytes) l += "x";
    return l + "\n";
  };
  for (std::size_t bytes : {7900u, 8090u, 8184u}) {
    const std::string path = appfile(line_of(bytes, ""));
    const std::string text = slurp(path);
    ASSERT_EQ(text.size(), bytes + 1);
    const Args job = {"mpirun", "--oversubscribe", "--app", path};
    ASSERT_EQ(run_process(job, kTimeout).exit_status, 0) << "the plain job runs a " << bytes << "-byte line";
    const auto wrapped = wrap(job);
    EXPECT_EQ(wrapped.exit_status, 0) << bytes << ": " << wrapped.err;
    const auto rec = record(wrapped);
    EXPECT_EQ(rec.value("complete", false), true) << bytes << ": " << wrapped.err;
    expect_calls(rec, {{"MPI_Comm_rank", 1}, {"MPI_Barrier", 1}});
    EXPECT_EQ(slurp(path), text) << "the user's appfile is not touched";
  }
  const std::string own_x = out_.string() + "-own-x";
  std::ofstream(own_x) << line_of(8150, "-x HPCSENS_TEST_OWN ");
  files_.push_back(own_x);
  const Args job = {"mpirun", "--oversubscribe", "--app", own_x};
  ASSERT_EQ(run_process(job, kTimeout).exit_status, 0) << "the plain job runs";
  const auto over = wrap(job);
  EXPECT_EQ(over.exit_status, 74) << over.err;
  EXPECT_NE(over.err.find("longer than Open MPI's limit of 8184 bytes per appfile line"), std::string::npos) << over.err;
  EXPECT_NE(over.err.find("line 1 sets its own -x"), std::string::npos) << over.err;
  EXPECT_NE(over.err.find("the job exited with status 0"), std::string::npos) << over.err;
  // A short line with its own -x is measured with the settings in front.
  const std::string short_x = appfile("-x HPCSENS_TEST_OWN -np 1 " + kExit + " 0\n");
  const auto measured = wrap({"mpirun", "--oversubscribe", "--app", short_x});
  EXPECT_EQ(measured.exit_status, 0) << measured.err;
  EXPECT_EQ(record(measured).value("complete", false), true) << measured.err;
}

TEST_F(AppfileRun, UnreadableAppfilesAreRefusedWithFileAndLineBeforeTheJob) {
  const std::string nul = appfile("-np 1 " + kExit + " 0\n-np 1 " + kExit + std::string(" 0\0x\n", 5));
  auto r = wrap({"mpirun", "--app", nul});
  EXPECT_EQ(r.exit_status, 2);
  EXPECT_NE(r.err.find(nul + ":2: appfile: contains a NUL byte"), std::string::npos) << r.err;
  const std::string dir = out_.string() + "-appdir";
  fs::create_directories(dir);
  files_.push_back(dir);
  r = wrap({"mpirun", "--app", dir});
  EXPECT_EQ(r.exit_status, 2);
  EXPECT_NE(r.err.find(dir + ": is a directory, not a file"), std::string::npos) << r.err;
  const std::string empty = appfile("# nothing to run\n\n");
  r = wrap({"mpirun", "-app", empty});
  EXPECT_EQ(r.exit_status, 2);
  EXPECT_NE(r.err.find(empty + ": appfile: names no app context"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out_)) << "nothing was run or written";
}

#ifdef MPICH_PROG_C
// Open MPI's mpirun cannot join an MPICH program to its job (the plain run fails); hpcsens must
// not pick one program's preload for both, and must not change what the job does.
TEST_F(AppfileRun, ContextsBuiltAgainstDifferentMpisAreSaidAndRunUnmeasured) {
  const Args job = {"mpirun", "--oversubscribe", "-np", "1", kExit, "4", ":", "-np", "1", MPICH_PROG_C, "0"};
  const auto plain = run_process(job, kTimeout);
  const auto wrapped = wrap(job);
  ASSERT_FALSE(plain.timed_out);
  ASSERT_FALSE(wrapped.timed_out);
  EXPECT_EQ(wrapped.exit_status, plain.exit_status);
  EXPECT_NE(wrapped.err.find("hpcsens: warning: the app contexts mix programs built against different MPIs (" + kExit +
                             ": Open MPI, " + MPICH_PROG_C + ": MPICH); one preload cannot serve both, so the job "
                             "runs unmeasured"),
            std::string::npos) << wrapped.err;
  EXPECT_TRUE(record_path(wrapped).empty());
  // The same in an appfile.
  const std::string path = appfile("-np 1 " + kExit + " 4\n-np 1 " + std::string(MPICH_PROG_C) + " 0\n");
  const auto via_file = wrap({"mpirun", "--oversubscribe", "--app", path});
  EXPECT_NE(via_file.err.find("mix programs built against different MPIs"), std::string::npos) << via_file.err;
  EXPECT_EQ(via_file.exit_status, run_process({"mpirun", "--oversubscribe", "--app", path}, kTimeout).exit_status);
}
#endif

}  // namespace
}  // namespace hpcsens::testing
