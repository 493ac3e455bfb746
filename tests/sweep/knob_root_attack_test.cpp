// A second, unprivileged user against root's sweep through the knob tree: a tree the user owns,
// holding a symlink that redirects a knob file into a root-only directory, is refused when the
// spec is read; a directory of the user's inside root's tree is refused before any knob is read
// through it. Nothing outside the tree is written.
#include <sys/stat.h>
#include <unistd.h>

#include "guard_helpers.h"

namespace fs = std::filesystem;

namespace hpcsens::sweep {
namespace {

using namespace testing;

class KnobRootAttack : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to create a second user";
    ASSERT_TRUE(u.ok());
    private_lock_dir(t);
    ::chmod(t.path().c_str(), 0755);
    // The victim: a root-only directory and a file in it.
    fs::create_directories(t.path() + "/rootonly");
    ::chmod((t.path() + "/rootonly").c_str(), 0700);
    put(t.path() + "/rootonly/secret", "precious");
  }
  // Hands `path` and everything below it to the second user (links included, not their targets).
  void give(const std::string& path) const {
    ASSERT_EQ(::lchown(path.c_str(), u.uid(), u.gid()), 0);
    for (const auto& e : fs::recursive_directory_iterator(path))
      ASSERT_EQ(::lchown(e.path().c_str(), u.uid(), u.gid()), 0) << e.path();
  }
  // policy0/scaling_max_freq -> the root-only file, planted by the second user.
  void plant(const std::string& root) const {
    const std::string knob = policy_dir(root, 0) + "/scaling_max_freq";
    fs::remove(knob);
    ASSERT_EQ(run(u.as({"/bin/ln", "-s", t.path() + "/rootonly/secret", knob}), t.path()).status, 0);
  }
  OtherUser u;
  TempDir t;
};

TEST_F(KnobRootAttack, ATreeAnotherUserOwnsIsRefusedAtSpecReadAndItsSymlinkIsNeverWritten) {
  const std::string root = t.path() + "/evil";
  make_tree(root);
  give(root);
  plant(root);
  put(t.path() + "/spec.yaml", knob_spec(root, "[/bin/true]"));
  const auto r = run({kHpcsens, "sweep", t.path() + "/spec.yaml", "-o", t.path() + "/out", "--no-fit"}, t.path());
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("spec.yaml:7: backends.sysfs_root: '" + root + "' cannot be a knob tree: " + root +
                       ": is owned by another user (uid " + std::to_string(u.uid()) + ")"),
            std::string::npos) << r.err;
  EXPECT_EQ(get(t.path() + "/rootonly/secret"), "precious");
  EXPECT_FALSE(fs::exists(t.path() + "/out/journal.jsonl"));
}

TEST_F(KnobRootAttack, ADirectoryAnotherUserOwnsInsideRootsTreeIsNotUsed) {
  const std::string root = t.path() + "/sys";
  make_tree(root);
  give(policy_dir(root, 0));  // root's tree, one policy directory handed over
  plant(root);
  put(t.path() + "/spec.yaml", knob_spec(root, "[/bin/true]"));
  const auto r = run({kHpcsens, "sweep", t.path() + "/spec.yaml", "-o", t.path() + "/out", "--no-fit"}, t.path());
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("spec.yaml:5: knobs.cpu_ghz:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("policy0: is owned by another user"), std::string::npos) << r.err;
  EXPECT_EQ(get(t.path() + "/rootonly/secret"), "precious");
  // The same tree with the directory back in root's hands: the planted link is still refused.
  ASSERT_EQ(::chown(policy_dir(root, 0).c_str(), 0, 0), 0);
  const auto again = run({kHpcsens, "sweep", t.path() + "/spec.yaml", "-o", t.path() + "/out2", "--no-fit"}, t.path());
  EXPECT_NE(again.status, 0) << again.err;
  EXPECT_NE(again.err.find("scaling_max_freq: is a symlink"), std::string::npos) << again.err;
  EXPECT_EQ(get(t.path() + "/rootonly/secret"), "precious");
}

}  // namespace
}  // namespace hpcsens::sweep
