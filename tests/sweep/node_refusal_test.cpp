// A node task's refusal reaches its controller through the sweep directory
// (sweep/execute/node_refusal.h): written by the node, read back per host, cleared when the node
// later applies, and never read through a link or from a file another user owns.
#include "sweep/execute/node_refusal.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace hpcsens::sweep {
namespace {

namespace fs = std::filesystem;

class NodeRefusal : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("hpcsens-refusal-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string dir() const { return dir_.string(); }
  fs::path dir_;
};

TEST_F(NodeRefusal, EachRefusingNodeIsNamedWithItsReasonInHostOrder) {
  note_node_refusal(dir(), "node1", "knobs are in use by the multi-node sweep in /x");
  note_node_refusal(dir(), "node0", "knobs are in use by another hpcsens sweep (pid 7 on node0)");
  const auto r = node_refusals(dir());
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0], "node0: knobs are in use by another hpcsens sweep (pid 7 on node0)");
  EXPECT_EQ(r[1], "node1: knobs are in use by the multi-node sweep in /x");
}

TEST_F(NodeRefusal, ANodeThatAppliesLaterClearsItsOldRefusalAndLeavesItsJournalAlone) {
  note_node_refusal(dir(), "node0", "refused once");
  std::ofstream(dir() + "/nodes/node0/journal.jsonl") << "{}\n";
  clear_node_refusal(dir(), "node0");
  EXPECT_TRUE(node_refusals(dir()).empty());
  EXPECT_TRUE(fs::exists(dir() + "/nodes/node0/journal.jsonl"));
  clear_node_refusal(dir(), "node-never-seen");  // no directory: nothing to do, no throw
}

TEST_F(NodeRefusal, ControlCharactersInTheReasonAreEscaped) {
  note_node_refusal(dir(), "node0", "bad\x1b[31m red");
  const auto r = node_refusals(dir());
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].find('\x1b'), std::string::npos) << r[0];
}

TEST_F(NodeRefusal, ALinkPlantedUnderTheNameIsNotFollowed) {
  const std::string secret = dir() + "/secret";
  std::ofstream(secret) << "root-only text\n";
  fs::create_directories(dir() + "/nodes/node0");
  fs::create_symlink(secret, dir() + "/nodes/node0/refused");
  const auto r = node_refusals(dir());
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].find("root-only text"), std::string::npos) << r[0];
  EXPECT_NE(r[0].find("could not be read"), std::string::npos) << r[0];
}

TEST_F(NodeRefusal, AFileAnotherUserOwnsIsNotBelieved) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give the file to another user";
  note_node_refusal(dir(), "node0", "planted reason");
  ASSERT_EQ(::chown((dir() + "/nodes/node0/refused").c_str(), 65534, 65534), 0);
  const auto r = node_refusals(dir());
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].find("planted reason"), std::string::npos) << r[0];
}

}  // namespace
}  // namespace hpcsens::sweep
