// A local attacker (a second, unprivileged user created for the test) against a sweep run as
// root: symlinks planted for results.csv and the journal, a directory the attacker owns, a
// swapped journal; and malformed input, each refused with exit 2 naming file, line and field.
#include <sys/stat.h>

#include <chrono>
#include <thread>

#include "guard_helpers.h"
#include "sweep/journal/locks.h"
#include "sweep/journal/session.h"

namespace fs = std::filesystem;

namespace hpcsens::sweep {
namespace {

using namespace testing;

// A root-owned directory every user may add to, like /tmp (mode 1777), inside a reachable tree.
std::string shared_dir(const TempDir& t, const std::string& name) {
  ::chmod(t.path().c_str(), 0755);
  const std::string d = t.path() + "/" + name;
  fs::create_directories(d);
  ::chmod(d.c_str(), 01777);
  return d;
}

// Root runs an emulated sweep; a second user prepares the attack.
class SweepAttackByUser : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to create a second user";
    ASSERT_TRUE(u.ok());
    private_lock_dir(t);
    put(t.path() + "/spec.yaml", emulated_spec());
  }
  OtherUser u;
  TempDir t;
};

TEST_F(SweepAttackByUser, PlantedSymlinksForTheJournalAndResultsLeaveTheirTargetsUntouched) {
  put(t.path() + "/victim", "precious");
  const std::string out = shared_dir(t, "out");
  // The journal link: the sweep refuses to write through it.
  ASSERT_EQ(run(u.as({"/bin/ln", "-s", t.path() + "/victim", out + "/journal.jsonl"}), t.path()).status, 0);
  auto r = run({kHpcsens, "sweep", t.path() + "/spec.yaml", "-o", out, "--no-fit"}, t.path());
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("journal.jsonl: is a symlink"), std::string::npos) << r.err;
  EXPECT_EQ(get(t.path() + "/victim"), "precious");
  // The results.csv link: replaced by the sweep's own file, never written through.
  const std::string out2 = shared_dir(t, "out2");
  ASSERT_EQ(run(u.as({"/bin/ln", "-s", t.path() + "/victim", out2 + "/results.csv"}), t.path()).status, 0);
  r = run({kHpcsens, "sweep", t.path() + "/spec.yaml", "-o", out2, "--no-fit"}, t.path());
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(get(t.path() + "/victim"), "precious");
  EXPECT_FALSE(fs::is_symlink(out2 + "/results.csv"));
  EXPECT_NE(get(out2 + "/results.csv").find("label,cpu_ghz"), std::string::npos);
  // A records/ directory the attacker made in the shared directory is refused.
  const std::string out3 = shared_dir(t, "out3");
  ASSERT_EQ(run(u.as({"/bin/mkdir", out3 + "/records"}), t.path()).status, 0);
  r = run({kHpcsens, "sweep", t.path() + "/spec.yaml", "-o", out3, "--no-fit"}, t.path());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("records: is owned by another user"), std::string::npos) << r.err;
}

TEST_F(SweepAttackByUser, DirectoriesAnotherUserControlsAreRefused) {
  const std::string shared = shared_dir(t, "shared");
  ASSERT_EQ(run(u.as({"/bin/mkdir", shared + "/evil"}), t.path()).status, 0);
  auto r = run({kHpcsens, "sweep", t.path() + "/spec.yaml", "-o", shared + "/evil", "--no-fit"}, t.path());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("is owned by another user"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(shared + "/evil/journal.jsonl"));
  // World-writable without the sticky bit: anyone could swap files in it.
  fs::create_directories(t.path() + "/open");
  ::chmod((t.path() + "/open").c_str(), 0777);
  r = run({kHpcsens, "sweep", t.path() + "/spec.yaml", "-o", t.path() + "/open", "--no-fit"}, t.path());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("writable by group or others without the sticky bit"), std::string::npos) << r.err;
}

// Issue 32: a FIFO another user plants under the journal's name. Opening a FIFO blocks until its
// other end comes: root's sweep hung there holding the machine-wide knob lock, and after it was
// killed every later sweep on those knobs was refused until root removed the lock by hand. Each
// sweep here runs with a timeout and must end by itself (-1 would be a hang).
class PlantedFifo : public SweepAttackByUser {
 protected:
  void SetUp() override {
    SweepAttackByUser::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    make_knob_tree(root);
    put(spec, sequential_knob_spec(root, mpi_job()));
  }
  // The knobs are free: a sweep on them runs to its end and puts them back.
  void expect_knobs_free(const std::string& name) {
    const auto r = run({kHpcsens, "sweep", spec, "-o", t.path() + "/" + name, "--no-fit"}, t.path(), 120);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(tree_is_original(root));
  }
  std::string planted(const std::string& out) const {
    return out + "/journal.jsonl: is a FIFO (named pipe), not a regular file (owned by uid " + std::to_string(u.uid());
  }
  std::string root = t.path() + "/sys", spec = t.path() + "/knobs.yaml";
};

TEST_F(PlantedFifo, AsTheJournalItIsRefusedAtOnceAndTheKnobsStayFree) {
  const std::string out = shared_dir(t, "out");
  ASSERT_EQ(run(u.as({"/usr/bin/mkfifo", out + "/journal.jsonl"}), t.path()).status, 0);
  const auto r = run({kHpcsens, "sweep", spec, "-o", out, "--no-fit"}, t.path(), 60);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find(planted(out)), std::string::npos) << r.err;
  EXPECT_TRUE(tree_is_original(root));
  expect_knobs_free("out2");
}

// The attack as reported: the FIFO appears once records/ does, between the sweep's checks and its
// journal's open. Whoever wins the race, the sweep ends by itself and the knobs stay usable.
TEST_F(PlantedFifo, PlantedWhileTheSweepStartsItNeverHangsIt) {
  const std::string out = shared_dir(t, "out"), racer = t.path() + "/racer";
  fs::create_directories(racer);
  const auto attacker = spawn(u.as({"/usr/bin/python3", "-c",
                                    "import os, time\nend = time.time() + 60\nopen('" + out + "/ready', 'w').close()\n"
                                    "while not os.path.isdir('" + out + "/records') and time.time() < end: pass\n"
                                    "os.mkfifo('" + out + "/journal.jsonl')\n"}),
                              racer);
  ASSERT_TRUE(eventually([&] { return fs::exists(out + "/ready"); }, 30)) << get(racer + "/stderr.txt");
  const auto r = run({kHpcsens, "sweep", spec, "-o", out, "--no-fit"}, t.path(), 120);
  wait_for(attacker, 70);
  ASSERT_NE(r.status, -1) << "the sweep hung";
  if (r.status == 2) EXPECT_NE(r.err.find(planted(out)), std::string::npos) << r.err;
  else EXPECT_EQ(r.status, 0) << r.err;
  RecordProperty("attacker_won", r.status == 2 ? "yes" : "no");
  EXPECT_TRUE(tree_is_original(root));
  expect_knobs_free("out2");
}

// The state the attack left: a machine-wide lock whose note names a sweep directory holding a FIFO
// for a journal. That sweep saved no knob value (it refuses such a file before its first line), so
// the next sweep goes on, and --restore clears the lock and says so (it refused: "not a regular
// file", and the lock stayed for good).
TEST_F(PlantedFifo, ALockItsSweepLeftIsClearedByRestore) {
  const std::string out = shared_dir(t, "out");
  ASSERT_EQ(run(u.as({"/usr/bin/mkfifo", out + "/journal.jsonl"}), t.path()).status, 0);
  { const FileLock dead = lock_machine(root, {out, "token-of-the-dead-sweep"}); }
  auto r = run({kHpcsens, "sweep", "--restore", out}, t.path(), 60);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find(planted(out)), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("the sweep saved no knob values, so it changed none"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("cleared the machine-wide lock " + t.path() + "/locks/sweep-knobs"), std::string::npos) << r.err;
  r = run({kHpcsens, "sweep", "--restore", out}, t.path(), 60);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("nothing to restore; remove it"), std::string::npos) << r.err;
  expect_knobs_free("out2");
  // Without --restore too: the next sweep reads the same evidence.
  { const FileLock dead = lock_machine(root, {out, "token-of-the-dead-sweep"}); }
  expect_knobs_free("out3");
}

// Another user's regular file under the journal's name is no evidence either way (a real journal
// could have been hard-linked by them): the lock keeps refusing, --restore says what to do, and
// once the file is removed --restore clears the lock.
TEST_F(PlantedFifo, AnotherUsersRegularFileIsNoEvidenceAndRestoreSaysWhatToDo) {
  const std::string out = shared_dir(t, "out");
  ASSERT_EQ(run(u.as({"/usr/bin/touch", out + "/journal.jsonl"}), t.path()).status, 0);
  { const FileLock dead = lock_machine(root, {out, "token-of-the-dead-sweep"}); }
  auto r = run({kHpcsens, "sweep", spec, "-o", t.path() + "/out2", "--no-fit"}, t.path(), 60);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("were left changed by a sweep that died"), std::string::npos) << r.err;
  r = run({kHpcsens, "sweep", "--restore", out}, t.path(), 60);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("journal.jsonl: is owned by another user (uid " + std::to_string(u.uid()) + ")"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("remove it and run hpcsens sweep --restore " + out + " again"), std::string::npos) << r.err;
  fs::remove(out + "/journal.jsonl");
  r = run({kHpcsens, "sweep", "--restore", out}, t.path(), 60);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("cleared the machine-wide lock"), std::string::npos) << r.err;
  expect_knobs_free("out3");
}

// A sweep killed after taking the machine lock but before creating its journal changed nothing:
// its lock does not refuse the next sweep (it did: an unreadable journal was taken as knobs changed).
TEST_F(PlantedFifo, ALockWhoseSweepDiedBeforeItsJournalDoesNotRefuseTheNext) {
  const std::string died = t.path() + "/died";
  fs::create_directories(died);
  { const FileLock dead = lock_machine(root, {died, "token-of-the-dead-sweep"}); }
  expect_knobs_free("out2");
  // --restore there clears such a lock and says why, creating nothing in the directory.
  { const FileLock dead = lock_machine(root, {died, "token-of-the-dead-sweep"}); }
  auto r = run({kHpcsens, "sweep", "--restore", died}, t.path(), 60);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find(died + "/journal.jsonl does not exist: the sweep saved no knob values"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("cleared the machine-wide lock"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::is_empty(died));
  r = run({kHpcsens, "sweep", "--restore", died}, t.path(), 60);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find(died + ": has no sweep journal (journal.jsonl)"), std::string::npos) << r.err;
}

// The sweep's token is in the journal, which others may read: a process of another user started
// with it in its environment must not block root's --resume (issue 22: it did); root's own does.
TEST_F(SweepAttackByUser, AnotherUsersProcessCarryingTheTokenIsNotTheSweeps) {
  const std::string token = "tok" + std::to_string(::getpid());
  const std::string env = "HPCSENS_SWEEP_TOKEN=" + token;
  auto in_background = [&](const std::vector<std::string>& argv) {
    std::string cmd = "env " + env;
    for (const auto& a : argv) cmd += " " + a;
    ASSERT_EQ(std::system((cmd + " >/dev/null 2>&1 &").c_str()), 0);
  };
  in_background(u.as({"/bin/sleep", "1.5"}));
  in_background({"/bin/sleep", "1.5"});
  std::vector<int> found;
  for (int i = 0; i < 50 && found.empty(); ++i) {  // until root's sleep has started
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    found = processes_of_sweep(token);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the other user's too
  found = processes_of_sweep(token);
  ASSERT_EQ(found.size(), 1u) << "only root's process counts";
  struct stat st {};
  ASSERT_EQ(::stat(("/proc/" + std::to_string(found[0])).c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 0u);
  std::this_thread::sleep_for(std::chrono::milliseconds(1600));  // both gone before the user is removed
}

// The journal says what to restore; --restore runs nothing it reads and writes only knob files
// under the recorded root. A journal another user owns or could write is not trusted at all.
TEST(SweepAttack, ASwappedJournalExecutesNothingAndWritesNothingOutsideTheRoot) {
  TempDir t;
  private_lock_dir(t);
  const std::string root = t.path() + "/sys", out = t.path() + "/out", marker = t.path() + "/pwned";
  make_knob_tree(root);
  put(t.path() + "/outside_scaling_max_freq", "precious");
  fs::create_directories(out);
  const nlohmann::json originals = {
      {"type", "originals"}, {"root", root},
      {"files", {{{"path", t.path() + "/outside_scaling_max_freq"}, {"value", "1"}},
                 {{"path", root + "/../outside_scaling_max_freq"}, {"value", "1"}},
                 {{"path", policy_dir(root, 0) + "/scaling_max_freq"}, {"value", "3500000"}}}},
      {"actions", {"sh -c 'touch " + marker + "'"}},
      {"commands", nlohmann::json::array({nlohmann::json::array({"/bin/touch", marker})})}};
  put(out + "/journal.jsonl", nlohmann::json({{"type", "header"}, {"runs", nlohmann::json::array()}}).dump() + "\n" +
                                  originals.dump() + "\n" + R"({"type":"apply"})");
  put(policy_dir(root, 0) + "/scaling_max_freq", "2000000");
  auto r = run({kHpcsens, "sweep", "--restore", out}, t.path());
  EXPECT_EQ(r.status, 1);
  EXPECT_FALSE(fs::exists(marker));
  EXPECT_EQ(get(t.path() + "/outside_scaling_max_freq"), "precious");
  EXPECT_EQ(get(policy_dir(root, 0) + "/scaling_max_freq"), "3500000");  // the one legitimate file
  EXPECT_NE(r.err.find("does not lie under the recorded sysfs root"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("unknown restore action"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("hpcsens runs nothing read from a file"), std::string::npos) << r.err;
  // Group- or world-writable, or another user's: refused before anything is read from it.
  ::chmod((out + "/journal.jsonl").c_str(), 0666);
  r = run({kHpcsens, "sweep", "--restore", out}, t.path());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("is writable by group or others; refusing to trust it"), std::string::npos) << r.err;
  if (::geteuid() == 0) {
    OtherUser u;
    ASSERT_TRUE(u.ok());
    ::chmod((out + "/journal.jsonl").c_str(), 0644);
    ASSERT_EQ(::chown((out + "/journal.jsonl").c_str(), u.uid(), u.gid()), 0);
    r = run({kHpcsens, "sweep", "--restore", out}, t.path());
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("is owned by another user"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(marker));
}

void expect_refused(const TempDir& t, const std::string& spec_text, const std::string& where, const std::string& what) {
  put(t.path() + "/bad.yaml", spec_text);
  const auto r = run({kHpcsens, "sweep", t.path() + "/bad.yaml", "--dry-run"}, t.path());
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find(t.path() + "/bad.yaml:" + where), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(what), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 0) << r.err;  // one line
}

TEST(SweepAttack, MalformedSpecsExit2NamingFileLineAndField) {
  TempDir t;
  expect_refused(t, "job: {command: [./a]}\n[knobs, x]: 1\n", "2: ?", "a key must be a plain name");
  expect_refused(t, "emulated: {W_cpu: 1, W_mem: 1, T_io: 0, mem_gbs: 10, overlap: .nan}\nknobs: {cpu_ghz: [1.0]}\n",
                 "1: emulated.overlap", "must be a finite number");
  expect_refused(t, "job: {command: [./a]}\noutput: \"\"\n", "2: output", "must not be empty");
  auto r = run({kHpcsens, "sweep", "/dev/zero", "--dry-run"}, t.path(), 10);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("/dev/zero: is not a regular file"), std::string::npos) << r.err;
  put(t.path() + "/ok.yaml", emulated_spec());
  r = run({kHpcsens, "sweep", t.path() + "/ok.yaml", "-o", ""}, t.path(), 10);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("-o/--out is empty"), std::string::npos) << r.err;
}

// 60,000 values with a duplicate at the end: refused quickly (a quadratic check took minutes).
TEST(SweepAttack, ASixtyThousandValueKnobListIsRefusedFast) {
  TempDir t;
  std::string list;
  for (int i = 0; i < 60000; ++i) list += (i ? ", " : "") + std::to_string(1.0 + i * 1e-4);
  list += ", 1.0";
  put(t.path() + "/big.yaml", "job: {command: [./a]}\nknobs: {cpu_ghz: [" + list + "]}\n");
  const auto start = std::chrono::steady_clock::now();
  const auto r = run({kHpcsens, "sweep", t.path() + "/big.yaml", "--dry-run"}, t.path(), 60);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("60,001-value cpu_ghz list refused in %.2f s\n", s);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("knobs.cpu_ghz[60000]"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("duplicate value 1.0 (same as knobs.cpu_ghz[0])"), std::string::npos) << r.err;
}

TEST(SweepAttack, JournalLinesWithWrongTypesExit2AndUnparsableLinesAreCounted) {
  TempDir t;
  private_lock_dir(t);
  put(t.path() + "/spec.yaml", emulated_spec());
  const std::string out = t.path() + "/out";
  ASSERT_EQ(run({kHpcsens, "sweep", t.path() + "/spec.yaml", "-o", out, "--no-fit"}, t.path()).status, 0);
  const std::string journal = get(out + "/journal.jsonl");
  put(out + "/journal.jsonl", journal + "\nnot json\n{\"type\":\"run\",\"id\":\"p00-r1\",\"status\":\"ok\"}\n");
  auto r = run({kHpcsens, "sweep", "--resume", out, "--no-fit"}, t.path());
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("1 line of " + out + "/journal.jsonl are not valid JSON objects and were ignored"),
            std::string::npos) << r.err;
  const int bad_line = int(std::count(journal.begin(), journal.end(), '\n')) + 2;
  put(out + "/journal.jsonl", journal + "\n{\"type\":\"run\",\"id\":7,\"status\":\"ok\"}\n");
  r = run({kHpcsens, "sweep", "--resume", out, "--no-fit"}, t.path());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("journal.jsonl:" + std::to_string(bad_line) + ": id: must be a string"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace hpcsens::sweep
