// The machine-wide knob lock as one node's task of a multi-node sweep (`--apply-point`) takes it:
// our own controller's lock lets the task on, another sweep's (live, or its note left by an ended
// node task while its knobs are still changed) refuses it; a restored sweep's note does not.
// flock(2) locks belong to open file descriptions, so two locks taken in this one process
// conflict exactly as two processes' would.
#include <gtest/gtest.h>

#include <cstdlib>

#include "common/errors.h"
#include "fake_sysfs.h"
#include "sweep/journal/journal.h"
#include "sweep/journal/locks.h"

namespace hpcsens::sweep {
namespace {

using testing::TempDir;

class NodeLock : public ::testing::Test {
 protected:
  void SetUp() override { ::setenv("HPCSENS_LOCK_DIR", (t_.path() + "/locks").c_str(), 1); }
  void TearDown() override { ::unsetenv("HPCSENS_LOCK_DIR"); }
  // A sweep directory whose journal says a multi-node sweep changed knobs (or restored them).
  SweepIdentity sweep_dir(const std::string& name, const std::string& token, bool restored) {
    const std::string dir = t_.path() + "/" + name;
    std::filesystem::create_directories(dir);
    Journal j(dir);
    j.append({{"type", "header"}, {"token", token}, {"runs", nlohmann::json::array()}});
    j.append({{"type", "originals"}, {"root", root_}, {"nnodes", 2}, {"files", nlohmann::json::array()}});
    j.append({{"type", "apply"}});
    if (restored) j.append({{"type", "restored"}});
    return {dir, token};
  }
  TempDir t_;
  const std::string root_ = "/fake/sysfs";
};

TEST_F(NodeLock, OwnControllersLockLetsTheTaskOnAnotherSweepsRefusesIt) {
  const auto a = sweep_dir("a", "token-a", false), b = sweep_dir("b", "token-b", false);
  const FileLock controller = lock_machine(root_, a);
  ASSERT_TRUE(controller.held());
  const FileLock own = lock_node_for_sweep(root_, a);
  EXPECT_FALSE(own.held()) << "the controller holds it for the same sweep";
  try {
    lock_node_for_sweep(root_, b);
    ADD_FAILURE() << "another sweep's node task got the node";
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("are in use by another hpcsens sweep (pid " + std::to_string(::getpid())), std::string::npos) << m;
    EXPECT_NE(m.find("changes nothing"), std::string::npos) << m;
  }
  // A task without a token (not started by a sweep) is another sweep too.
  EXPECT_THROW(lock_node_for_sweep(root_, {t_.path() + "/c", ""}), InputError);
}

TEST_F(NodeLock, AnEndedNodeTasksNoteKeepsTheNodeUntilItsSweepRestored) {
  const auto a = sweep_dir("a", "token-a", false), b = sweep_dir("b", "token-b", false);
  { const FileLock task = lock_node_for_sweep(root_, a); ASSERT_TRUE(task.held()); }
  // a's task ended (flock gone), a's knobs stay changed: neither b's task nor b's controller.
  for (int controller = 0; controller < 2; ++controller) {
    try {
      (void)(controller ? lock_machine(root_, b) : lock_node_for_sweep(root_, b));
      ADD_FAILURE() << "b took a node whose knobs a changed";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("are in use by the multi-node sweep in " + a.dir), std::string::npos) << e.what();
    }
  }
  // a's own next task and a's controller (a resumed) go on.
  EXPECT_TRUE(lock_node_for_sweep(root_, a).held());
  // Once a's journal says restored, b may have the node.
  Journal(a.dir).append({{"type", "restored"}});
  EXPECT_TRUE(lock_node_for_sweep(root_, b).held());
}

}  // namespace
}  // namespace hpcsens::sweep
