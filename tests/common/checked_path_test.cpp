// The component-by-component walk (common/checked_path.h), the private directory for files handed
// to other programs (common/private_dir.h) and names that replace nothing (commit_unique): real
// directories, symlinks and owners (chown needs root; those cases skip without it).
#include "common/checked_path.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "common/private_dir.h"
#include "common/safe_file.h"

namespace fs = std::filesystem;
using namespace hpcsens::safe_file;

namespace {

constexpr uid_t kOther = 65534;  // nobody: "another user" for ownership rules

class CheckedPath : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/hpcsens_walk_XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }
  // "" when `path` opens; else the reason.
  static std::string walk(const fs::path& path, bool create = false, bool* untrusted = nullptr) {
    std::string why;
    const int fd = open_checked_dir(path.string(), create, &why, untrusted);
    if (fd >= 0) ::close(fd);
    return fd >= 0 ? "" : why;
  }
  void chown_other(const fs::path& p) { ASSERT_EQ(::lchown(p.c_str(), kOther, kOther), 0); }
  fs::path dir_;
};

TEST_F(CheckedPath, AParentOwnedByAnotherUserIsRefusedAndNothingIsCreatedInIt) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to chown";
  fs::create_directories(dir_ / "theirs");
  chown_other(dir_ / "theirs");
  bool untrusted = false;
  const auto err = walk(dir_ / "theirs" / "out" / "deeper", /*create=*/true, &untrusted);
  EXPECT_EQ(err, (dir_ / "theirs").string() + ": is owned by another user (uid 65534); hpcsens writes only into "
                                              "directories owned by you or root");
  EXPECT_TRUE(untrusted);
  EXPECT_FALSE(fs::exists(dir_ / "theirs" / "out")) << "created inside another user's directory";
}

TEST_F(CheckedPath, SharedParentsNeedTheStickyBit) {
  fs::create_directories(dir_ / "shared" / "mine");
  ::chmod((dir_ / "shared").c_str(), 0777);
  EXPECT_NE(walk(dir_ / "shared" / "mine").find("shared: is writable by group or others without the sticky bit"),
            std::string::npos);
  ::chmod((dir_ / "shared").c_str(), 01777);  // /tmp: others cannot rename what we own in it
  EXPECT_EQ(walk(dir_ / "shared" / "mine"), "");
}

TEST_F(CheckedPath, SymlinksOnTheWayAreFollowedOnlyWhenOursAndNeverAtTheEnd) {
  fs::create_directories(dir_ / "real" / "sub");
  fs::create_directory_symlink(dir_ / "real", dir_ / "link");
  EXPECT_EQ(walk(dir_ / "link" / "sub"), "") << "a link of ours (root's) on the way";
  EXPECT_EQ(walk(dir_ / "link"), (dir_ / "link").string() + ": is a symlink; refusing to follow it");
  fs::create_directory_symlink("real", dir_ / "rel");
  EXPECT_EQ(walk(dir_ / "rel" / "sub" / ".." / "sub"), "") << "relative target and '..' walked";
  if (::geteuid() != 0) return;
  chown_other(dir_ / "link");
  bool untrusted = false;
  EXPECT_EQ(walk(dir_ / "link" / "sub", false, &untrusted),
            (dir_ / "link").string() + ": is a symlink owned by another user (uid 65534); refusing to follow it");
  EXPECT_TRUE(untrusted);
}

TEST_F(CheckedPath, TheTargetOfALinkIsCheckedLikeAnyPath) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to chown";
  fs::create_directories(dir_ / "theirs" / "sub");
  chown_other(dir_ / "theirs");
  fs::create_directory_symlink(dir_ / "theirs", dir_ / "link");  // ours, pointing at theirs
  EXPECT_EQ(walk(dir_ / "link" / "sub").find((dir_ / "theirs").string() + ": is owned by another user"), 0u);
}

TEST_F(CheckedPath, MissingDirectoriesAreCreatedAndFailuresAreNotRefusals) {
  EXPECT_EQ(walk(dir_ / "a" / "b" / "c", true), "");
  EXPECT_TRUE(fs::is_directory(dir_ / "a" / "b" / "c"));
  std::ofstream(dir_ / "file") << "x";
  bool untrusted = true;
  EXPECT_EQ(walk(dir_ / "file" / "x", true, &untrusted), (dir_ / "file").string() + ": is not a directory");
  EXPECT_FALSE(untrusted);
  EXPECT_NE(walk(dir_ / "missing").find("No such file or directory"), std::string::npos);
}

TEST_F(CheckedPath, CodeMustComeFromWhereOnlyItsOwnerCanWrite) {
  fs::create_directories(dir_ / "lib");
  std::ofstream(dir_ / "lib" / "p.so") << "x";
  ::chmod((dir_ / "lib" / "p.so").c_str(), 0644);
  EXPECT_EQ(code_file_problem((dir_ / "lib" / "p.so").string()), "");
  ::chmod((dir_ / "lib").c_str(), 01777);  // sticky is fine for output, not for code
  EXPECT_NE(code_file_problem((dir_ / "lib" / "p.so").string()).find("writable by group or others"), std::string::npos);
  ::chmod((dir_ / "lib").c_str(), 0755);
  ::chmod((dir_ / "lib" / "p.so").c_str(), 0666);
  EXPECT_NE(code_file_problem((dir_ / "lib" / "p.so").string()).find("p.so: is writable"), std::string::npos);
  EXPECT_EQ(code_owner_problem(0, 0100755, 1000), "");
  EXPECT_NE(code_owner_problem(1001, 0100755, 1000), "");
}

TEST(PrivateDir, IsFreshPrivateAndRemovedAfterUse) {
  Dir a, b;
  ASSERT_EQ(make_private_dir("t", &a), "");
  ASSERT_EQ(make_private_dir("t", &b), "");
  EXPECT_NE(a.path(), b.path());
  struct stat st {};
  ASSERT_EQ(::stat(a.path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0700u);
  EXPECT_EQ(st.st_uid, ::geteuid());
  ASSERT_EQ(::stat(private_base_path().c_str(), &st), 0);
  EXPECT_EQ(private_dir_problem(st.st_uid, st.st_mode, ::geteuid()), "") << private_base_path();
  ASSERT_EQ(write_atomic(a, "f", "x"), "");
  const std::string path = a.path();
  remove_private_dir(a, {"f"});
  remove_private_dir(b, {});
  EXPECT_FALSE(fs::exists(path));
  EXPECT_NE(private_dir_problem(1001, 040700, 1000), "");
  EXPECT_NE(private_dir_problem(1000, 040750, 1000), "");
}

TEST_F(CheckedPath, UniqueNamesReplaceNothingPlanted) {
  Dir d;
  ASSERT_EQ(open_dir(dir_.string(), false, &d), "");
  fs::create_directory(dir_ / "R.json");
  std::set<std::string> names;
  for (int i = 0; i < 20; ++i) {
    std::string name;
    ASSERT_EQ(write_unique(d, "R", ".json", "rec", &name), "");
    EXPECT_EQ(name.size(), std::string("R.0123456789abcdef.json").size()) << name;
    names.insert(name);
  }
  EXPECT_EQ(names.size(), 20u);
  EXPECT_TRUE(fs::is_directory(dir_ / "R.json"));
  EXPECT_EQ(random_hex(8).size(), 16u);
}

}  // namespace
