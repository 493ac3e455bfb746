// Real files, real symlinks, real ownership: what root must never write through.
#include "common/safe_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/errors.h"

namespace fs = std::filesystem;
using namespace hpcsens::safe_file;

namespace {

class SafeFile : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/hpcsens_safe_XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }
  static std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  fs::path dir_;
};

TEST_F(SafeFile, WritesAtomicallyAndLeavesNoTemporary) {
  const auto path = (dir_ / "r.json").string();
  EXPECT_EQ(write_file_atomic(path, "hello"), "");
  EXPECT_EQ(slurp(path), "hello");
  EXPECT_EQ(write_file_atomic(path, "again"), "");
  EXPECT_EQ(slurp(path), "again");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

TEST_F(SafeFile, PlantedSymlinkAtFinalNameIsReplacedNotFollowed) {
  std::ofstream(dir_ / "victim") << "precious";
  fs::create_symlink(dir_ / "victim", dir_ / "r.json");
  EXPECT_EQ(write_file_atomic((dir_ / "r.json").string(), "record"), "");
  EXPECT_EQ(slurp(dir_ / "victim"), "precious");
  EXPECT_FALSE(fs::is_symlink(dir_ / "r.json"));
  EXPECT_EQ(slurp(dir_ / "r.json"), "record");
}

TEST_F(SafeFile, SymlinkedDirectoryIsRefused) {
  fs::create_directory(dir_ / "real");
  fs::create_directory_symlink(dir_ / "real", dir_ / "link");
  const auto err = write_file_atomic((dir_ / "link" / "r.json").string(), "x");
  EXPECT_NE(err.find("link: is a symlink"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(dir_ / "real" / "r.json"));
}

TEST_F(SafeFile, GroupWritableDirectoryWithoutStickyBitIsRefused) {
  fs::create_directory(dir_ / "shared");
  ::chmod((dir_ / "shared").c_str(), 0777);
  const auto err = write_file_atomic((dir_ / "shared" / "r.json").string(), "x");
  EXPECT_NE(err.find("sticky"), std::string::npos) << err;
  ::chmod((dir_ / "shared").c_str(), 01777);
  EXPECT_EQ(write_file_atomic((dir_ / "shared" / "r.json").string(), "x"), "");
}

TEST_F(SafeFile, DirectoryOwnedByAnotherUserIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to chown";
  fs::create_directory(dir_ / "theirs");
  ASSERT_EQ(::chown((dir_ / "theirs").c_str(), 65534, 65534), 0);
  const auto err = write_file_atomic((dir_ / "theirs" / "r.json").string(), "x");
  EXPECT_NE(err.find("another user"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(dir_ / "theirs" / "r.json"));
}

TEST_F(SafeFile, CreatesMissingDirectoriesWhenAsked) {
  const auto path = (dir_ / "a" / "b" / "r.json").string();
  EXPECT_NE(write_file_atomic(path, "x"), "");
  EXPECT_EQ(write_file_atomic(path, "x", /*create_dir=*/true), "");
  EXPECT_EQ(slurp(path), "x");
}

TEST_F(SafeFile, AppendRefusesDanglingSymlinkAndDoesNotCreateItsTarget) {
  fs::create_symlink(dir_ / "created_by_root", dir_ / "journal.jsonl");
  Dir d;
  ASSERT_EQ(open_dir(dir_.string(), false, &d), "");
  int fd = -1;
  const auto err = open_append(d, "journal.jsonl", &fd);
  EXPECT_NE(err.find("symlink"), std::string::npos) << err;
  EXPECT_EQ(fd, -1);
  EXPECT_FALSE(fs::exists(dir_ / "created_by_root"));
}

TEST_F(SafeFile, AppendRefusesHardLinkedFile) {
  std::ofstream(dir_ / "other") << "x";
  fs::create_hard_link(dir_ / "other", dir_ / "journal.jsonl");
  Dir d;
  ASSERT_EQ(open_dir(dir_.string(), false, &d), "");
  int fd = -1;
  EXPECT_NE(open_append(d, "journal.jsonl", &fd).find("hard links"), std::string::npos);
}

TEST_F(SafeFile, AppendWritesAtTheEnd) {
  Dir d;
  ASSERT_EQ(open_dir(dir_.string(), false, &d), "");
  for (const char* line : {"a\n", "b\n"}) {
    int fd = -1;
    ASSERT_EQ(open_append(d, "j", &fd), "");
    EXPECT_EQ(write_all(fd, line, "j"), "");
    ::close(fd);
  }
  EXPECT_EQ(slurp(dir_ / "j"), "a\nb\n");
}

TEST(SafeFileTrust, RulesForOwnerAndMode) {
  EXPECT_EQ(dir_trust_problem(1000, 040755, 1000), "");
  EXPECT_EQ(dir_trust_problem(0, 041777, 1000), "");  // /tmp
  EXPECT_NE(dir_trust_problem(1001, 040755, 1000), "");
  EXPECT_NE(dir_trust_problem(0, 040775, 0), "");
  EXPECT_NE(dir_trust_problem(1000, 040757, 0), "");
}

TEST_F(SafeFile, InputFilesMustBeRegularAndBounded) {
  EXPECT_THROW(read_input_file("/dev/zero"), hpcsens::InputError);
  EXPECT_THROW(read_input_file(dir_.string()), hpcsens::InputError);
  std::ofstream(dir_ / "big") << std::string(100, 'x');
  try {
    read_input_file((dir_ / "big").string(), 10);
    FAIL();
  } catch (const hpcsens::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("larger than 10 bytes"), std::string::npos);
  }
  EXPECT_EQ(read_input_file((dir_ / "big").string()).size(), 100u);
}

TEST_F(SafeFile, OwnFilesAreNotReadThroughSymlinksOrFromOtherUsers) {
  std::ofstream(dir_ / "mine") << "{}";
  fs::create_symlink(dir_ / "mine", dir_ / "link");
  EXPECT_EQ(read_own_file((dir_ / "mine").string(), 100), "{}");
  EXPECT_EQ(read_input_file((dir_ / "link").string()), "{}") << "input named by the user may be a link";
  try {
    read_own_file((dir_ / "link").string(), 100);
    FAIL() << "read through a symlink";
  } catch (const hpcsens::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("is a symlink"), std::string::npos) << e.what();
  }
  if (::geteuid() == 0) {
    ASSERT_EQ(::chown((dir_ / "mine").c_str(), 4242, 4242), 0);
    EXPECT_THROW(read_own_file((dir_ / "mine").string(), 100), hpcsens::InputError);
  }
}

}  // namespace
