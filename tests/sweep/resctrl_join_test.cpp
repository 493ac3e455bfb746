// The launch agent of a multi-node resctrl sweep (`hpcsens resctrl-join`, sweep/execute/
// resctrl_join.h), through the real CLI over the resctrl double: it joins only a group its
// node's journal names as this sweep's and live, never through a symlink, notes the join, and
// only then becomes the daemon; refused, it runs nothing. The multi-node sweep itself is
// tested on the namespace cluster (tests/cluster/multinode_resctrl_test.cpp).
#include <sys/stat.h>
#include <unistd.h>

#include "common/safe_file.h"

#include "resctrl_model.h"
#include "sweep/execute/resctrl_join.h"
#include "sweep_cli_helpers.h"

namespace hpcsens::sweep {
namespace {

using namespace testing;
namespace fs = std::filesystem;

class ResctrlJoin : public ::testing::Test {
 protected:
  TempDir t;
  std::string root = t.path() + "/resctrl", dir = t.path() + "/sweep", host = this_host_name();
  std::string group = "hpcsens-tok1-p00", node = dir + "/nodes/" + host;

  void SetUp() override {
    build_resctrl(root, {});
    ResctrlModel().make_group(root, group);
    fs::create_directories(root + "/batch");  // another user's group
    put(root + "/batch/tasks", "");
    journal_lines(R"({"type":"resctrl_group","root":")" + root + R"(","group":")" + group + "\"}\n");
  }
  // This node's journal as --apply-point writes it: originals with the token, then `more`.
  void journal_lines(const std::string& more) {
    fs::create_directories(node);
    ::chmod(dir.c_str(), 0700);
    std::ofstream(node + "/journal.jsonl", std::ios::trunc)
        << R"({"type":"originals","root":"/sys","files":[],"actions":[],"token":"tok1"})" "\n" << more;
    ::chmod((node + "/journal.jsonl").c_str(), 0600);
  }
  Result join(const std::string& token, const std::string& g, const std::string& run = "p00-r1-a1") {
    return testing::run({kHpcsens, "resctrl-join", "--dir", dir, "--token", token, "--group", g, "--run", run, "--",
                         "/bin/sh", "-c", "echo daemon $$"},
                        t.path());
  }
  std::vector<std::string> noted(const std::string& run = "p00-r1-a1") const {
    std::vector<std::string> v;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir + "/resctrl-joins/" + run, ec)) v.push_back(e.path().filename());
    return v;
  }
};

TEST_F(ResctrlJoin, JoinsTheJournalledGroupNotesItAndBecomesTheDaemon) {
  const auto r = join("tok1", group);
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_EQ(r.out.rfind("daemon ", 0), 0u) << r.out;
  const std::string pid = r.out.substr(7);
  // The daemon's pid (the agent's, kept across exec) is what went into the group's tasks.
  EXPECT_EQ(get(root + "/" + group + "/tasks"), pid);
  EXPECT_EQ(noted(), std::vector<std::string>{host + "." + pid});
  EXPECT_TRUE(hosts_outside_group(dir, "p00-r1-a1", {host}, "elsewhere", false).empty());
  EXPECT_EQ(hosts_outside_group(dir, "p00-r1-a1", {host, "node9"}, "elsewhere", false), std::vector<std::string>{"node9"});
  EXPECT_EQ(hosts_outside_group(dir, "p00-r1-a2", {host}, "elsewhere", false), std::vector<std::string>{host});
  EXPECT_TRUE(hosts_outside_group(dir, "p00-r1-a2", {host}, host, true).empty());
}

// A note counts only when it is the sweep user's own regular file naming its host and pid: one
// planted by another user (in a shared sweep directory), a FIFO (never opened blocking), a
// symlink or a note whose content names another host counts for no host.
TEST_F(ResctrlJoin, PlantedJoinNotesCountForNoHost) {
  const std::string notes = dir + "/resctrl-joins/p00-r2-a1";
  fs::create_directories(notes);
  auto note = [&](const std::string& host, int pid) {
    const std::string path = notes + "/" + host + "." + std::to_string(pid);
    std::ofstream(path) << R"({"host":")" << host << R"(","pid":)" << pid << R"(,"group":"/x"})" << "\n";
    return path;
  };
  note("node6", 77);
  ASSERT_EQ(::chown(note("node7", 123).c_str(), 4242, 4242), 0);  // another user's
  ASSERT_EQ(::mkfifo((notes + "/node8.5").c_str(), 0644), 0);
  const std::string elsewhere = t.path() + "/node9.6";
  std::ofstream(elsewhere) << R"({"host":"node9","pid":6})" << "\n";
  ASSERT_EQ(::symlink(elsewhere.c_str(), (notes + "/node9.6").c_str()), 0);
  std::ofstream(notes + "/node5.8") << R"({"host":"node6","pid":8})" << "\n";  // names another host
  const std::vector<std::string> hosts = {"node5", "node6", "node7", "node8", "node9"};
  EXPECT_EQ(hosts_outside_group(dir, "p00-r2-a1", hosts, "elsewhere", false),
            (std::vector<std::string>{"node5", "node7", "node8", "node9"}));
  std::string host;
  safe_file::Dir d;
  ASSERT_EQ(safe_file::open_dir(notes, false, &d), "");
  EXPECT_NE(join_note_problem(d.fd(), "node7.123", ::geteuid(), &host).find("owned by uid 4242"), std::string::npos);
  EXPECT_EQ(join_note_problem(d.fd(), "node8.5", ::geteuid(), &host), "not a regular file");
  EXPECT_NE(join_note_problem(d.fd(), "node9.6", ::geteuid(), &host), "");
  EXPECT_EQ(join_note_problem(d.fd(), "node6.77", ::geteuid(), &host), "");
  EXPECT_EQ(host, "node6");
}

TEST_F(ResctrlJoin, AGroupOfAnotherTokenIsRefusedAndNothingRuns) {
  ResctrlModel().make_group(root, "hpcsens-tok2-p00");
  for (const auto& [token, g] : std::vector<std::pair<std::string, std::string>>{
           {"tok2", "hpcsens-tok2-p00"}, {"tok1", "hpcsens-tok2-p00"}, {"tok1", "batch"}}) {
    const auto r = join(token, g);
    EXPECT_EQ(r.status, 2) << token << " " << g << r.err;
    EXPECT_EQ(r.out, "") << "the daemon ran";
    EXPECT_NE(r.err.find("hpcsens resctrl-join: refused on " + host), std::string::npos) << r.err;
  }
  EXPECT_NE(join("tok2", "hpcsens-tok2-p00").err.find("belongs to sweep 'tok1', not to sweep 'tok2'"), std::string::npos);
  EXPECT_NE(join("tok1", "hpcsens-tok2-p00").err.find("is not live in"), std::string::npos);
  EXPECT_EQ(get(root + "/hpcsens-tok2-p00/tasks"), "");
  EXPECT_EQ(get(root + "/batch/tasks"), "");
  EXPECT_TRUE(noted().empty());
}

TEST_F(ResctrlJoin, AGroupTheJournalSaysIsRemovedIsRefused) {
  journal_lines(R"({"type":"resctrl_group","root":")" + root + R"(","group":")" + group + "\"}\n" +
                R"({"type":"resctrl_removed","group":")" + group + "\"}\n");
  const auto r = join("tok1", group);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("is not live in"), std::string::npos) << r.err;
  EXPECT_EQ(get(root + "/" + group + "/tasks"), "");
}

TEST_F(ResctrlJoin, ASymlinkedTasksFileOrGroupIsRefused) {
  // tasks pointing at another group's: the write would put the daemon there.
  fs::remove(root + "/" + group + "/tasks");
  fs::create_symlink(root + "/batch/tasks", root + "/" + group + "/tasks");
  auto r = join("tok1", group);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("tasks is not a regular file (a symlink?)"), std::string::npos) << r.err;
  EXPECT_EQ(get(root + "/batch/tasks"), "");
  // The group itself a symlink to another user's group.
  const std::string g1 = "hpcsens-tok1-p01";
  fs::create_directory_symlink(root + "/batch", root + "/" + g1);
  journal_lines(R"({"type":"resctrl_group","root":")" + root + R"(","group":")" + g1 + "\"}\n");
  r = join("tok1", g1);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find(g1 + " is not a directory (a symlink?)"), std::string::npos) << r.err;
  EXPECT_EQ(get(root + "/batch/tasks"), "");
  EXPECT_TRUE(noted().empty());
}

TEST_F(ResctrlJoin, NoJournalOnThisNodeIsRefused) {
  fs::remove_all(dir + "/nodes");
  const auto r = join("tok1", group);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("this node has no journal of the sweep"), std::string::npos) << r.err;
  EXPECT_EQ(get(root + "/" + group + "/tasks"), "");
}

}  // namespace
}  // namespace hpcsens::sweep
