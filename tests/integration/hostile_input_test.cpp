// `hpcsens run` against hostile or unusual surroundings, end to end with real mpirun: MPMD lines
// (Open MPI contexts, Hydra sections), bytes that are not UTF-8 in argv and in a rank's host name
// (its own UTS namespace), output directories another user controls (a real second user), bad
// run ids, and a full file system (a small tmpfs).
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "process.h"
#include "run_fixture.h"
#include "second_user.h"

namespace hpcsens::testing {
namespace {

namespace fs = std::filesystem;
using Args = std::vector<std::string>;

const std::string kExit = std::string(HPCSENS_EXAMPLES_DIR) + "/example_exit";
const std::string kPreload = fs::path(HPCSENS_BIN).parent_path().parent_path() / "lib" / "libhpcsens_preload.so";

class HostileRun : public HpcsensRunTest {
 protected:
  // The job run plainly and wrapped: same exit status, a complete record of `nranks` ranks.
  nlohmann::json expect_like_plain(const Args& job, int nranks) {
    const auto plain = run_process(job, kTimeout);
    const auto wrapped = wrap(job);
    EXPECT_FALSE(plain.timed_out);
    EXPECT_FALSE(wrapped.timed_out) << "hpcsens run hung";
    EXPECT_EQ(wrapped.exit_status, plain.exit_status) << wrapped.err;
    const auto rec = record(wrapped);
    EXPECT_EQ(rec.value("complete", false), true) << wrapped.err;
    EXPECT_EQ(rec.at("job").value("nranks", 0), nranks);
    EXPECT_EQ(rec.value("ranks", nlohmann::json::array()).size(), static_cast<std::size_t>(nranks));
    return rec;
  }
};

TEST_F(HostileRun, OpenMpiMpmdReachesEveryAppContext) {
  const auto rec = expect_like_plain(
      {"mpirun", "--oversubscribe", "-np", "1", kExit, "0", ":", "-np", "1", kExit, "5"}, 2);
  EXPECT_EQ(rec.at("job").at("command").size(), 11u);
}

#ifdef MPICH_HYDRA
TEST_F(HostileRun, HydraMpmdReachesEverySection) {
  expect_like_plain({MPICH_HYDRA, "-n", "1", MPICH_PROG_C, "0", ":", "-n", "1", MPICH_PROG_C, "3"}, 2);
}
#endif

TEST_F(HostileRun, Latin1ArgumentIsRunAndStoredLosslessly) {
  const auto rec = expect_like_plain({"mpirun", "-np", "1", kExit, "4", "caf\xe9.dat", "a\\b"}, 1);
  const auto cmd = rec.at("job").at("command");
  ASSERT_EQ(cmd.size(), 7u);
  EXPECT_EQ(cmd[5], "caf\\xe9.dat") << "invalid byte as \\xHH";
  EXPECT_EQ(cmd[6], "a\\\\b") << "a backslash doubled, so the escaping is reversible";
}

TEST_F(HostileRun, NonUtf8HostNameOfOneRankNeitherHangsNorLosesIt) {
  if (::geteuid() != 0 || sh("unshare -u true") != 0) GTEST_SKIP() << "needs root and unshare -u";
  const fs::path script = out_.string() + "-host.sh";
  std::ofstream(script) << "#!/bin/sh\nprintf 'h\\351' > /proc/sys/kernel/hostname && exec \"$@\"\n";
  fs::permissions(script, fs::perms::owner_all);
  const auto rec = expect_like_plain({"mpirun", "--oversubscribe", "-np", "1", kExit, "0", ":", "-np", "1",
                                      "unshare", "-u", script.string(), kExit, "0"},
                                     2);
  fs::remove(script);
  const auto hosts = rec.at("job").at("hosts");
  EXPECT_NE(std::find(hosts.begin(), hosts.end(), "h\\xe9"), hosts.end()) << hosts.dump();
}

// Event names come from the user (--events, HPCSENS_EVENTS) and reach the record and the
// warnings: bytes that are not UTF-8, quotes and control characters must neither break the
// record's JSON nor the job, and stay recoverable (text::encode_outside).
TEST_F(HostileRun, HostileEventNameIsStoredLosslesslyAndTheJobStatusKept) {
  const std::string hostile = "bad\xff\"q\x1b[31m\nname";
  const Args job = {"mpirun", "--oversubscribe", "-np", "2", kExit, "3"};
  const auto plain = run_process(job, kTimeout);
  const auto wrapped = wrap(job, {"--events", "perf::TASK-CLOCK," + hostile});
  ASSERT_FALSE(wrapped.timed_out);
  EXPECT_EQ(wrapped.exit_status, plain.exit_status) << wrapped.err;
  EXPECT_EQ(wrapped.exit_status, 3);
  const std::string path = record_path(wrapped);
  ASSERT_FALSE(path.empty()) << wrapped.err;
  std::ifstream in(path);
  const auto rec = nlohmann::json::parse(in);  // throws, failing the test, if not valid JSON
  EXPECT_EQ(rec.value("complete", false), true);
  EXPECT_EQ(rec.at("ranks").size(), 2u);
  // The name as stored: the invalid byte as \xff, quote and controls kept (JSON escapes them).
  EXPECT_NE(rec.dump().find("bad\\\\xff\\\"q\\u001b[31m\\nname"), std::string::npos) << rec.dump(1);
  // The preload's warning names the event escaped, on one line.
  const auto warning = wrapped.err.find("hpcsens: warning: counters: ");
  ASSERT_NE(warning, std::string::npos) << wrapped.err;
  const std::string line = wrapped.err.substr(warning, wrapped.err.find('\n', warning) - warning);
  EXPECT_NE(line.find("bad\\xff\"q\\x1b[31m\\nname"), std::string::npos) << line;
  // Nothing hpcsens prints, the report included, carries the raw escape byte to the terminal.
  EXPECT_EQ(wrapped.out.find('\x1b'), std::string::npos) << wrapped.out;
  EXPECT_EQ(wrapped.err.find('\x1b'), std::string::npos) << wrapped.err;
}

TEST_F(HostileRun, BadRunIdIsRefusedBeforeTheJob) {
  const fs::path marker = out_.string() + "-marker";
  for (const char* id : {"../escape", "a/b", "bad\nid"}) {
    const auto r = run_process({"env", std::string("HPCSENS_RUN_ID=") + id, HPCSENS_BIN, "run", "--out", out_.string(),
                                "--", "/bin/touch", marker.string()},
                               kTimeout);
    EXPECT_EQ(r.exit_status, 2) << id;
    EXPECT_NE(r.err.find("hpcsens: error: HPCSENS_RUN_ID"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line, control characters escaped: " << r.err;
    EXPECT_FALSE(fs::exists(marker)) << "the job must not start";
  }
}

TEST_F(HostileRun, PreloadAloneReplacesABadRunIdAndWritesInsideItsDirectory) {
  fs::create_directories(out_ / "sub");
  const auto r = run_process({"mpirun", "-np", "2", "--oversubscribe", "-x", "LD_PRELOAD=" + kPreload, "-x",
                              "HPCSENS_OUT=" + (out_ / "sub").string(), "-x", "HPCSENS_RUN_ID=../escaped", kExit, "0"},
                             kTimeout);
  EXPECT_EQ(r.exit_status, 0) << r.err;
  EXPECT_FALSE(fs::exists(out_ / "escaped.json"));
  std::size_t warnings = 0;
  for (std::size_t p = 0; (p = r.err.find("HPCSENS_RUN_ID '../escaped'", p)) != std::string::npos; ++p) ++warnings;
  EXPECT_EQ(warnings, 1u) << r.err;
  std::size_t records = 0;
  for (const auto& e : fs::directory_iterator(out_ / "sub")) records += e.path().extension() == ".json";
  EXPECT_EQ(records, 1u) << "the record under a generated id";
}

TEST_F(SecondUser, ForeignOrSharedOutputDirectoriesAreRefusedBeforeTheJob) {
  const fs::path marker = out_.string() + "-marker";
  fs::create_directories(out_);
  const fs::path foreign = out_ / "theirs", shared = out_ / "shared", link = out_ / "link";
  fs::create_directories(foreign);
  ASSERT_EQ(::chown(foreign.c_str(), uid_, static_cast<gid_t>(-1)), 0);
  fs::create_directories(shared);
  ::chmod(shared.c_str(), 0777);
  fs::create_symlink(foreign, link);
  for (const auto& [dir, why] : {std::pair{foreign, "is owned by another user"},
                                 std::pair{shared, "writable by group or others without the sticky bit"},
                                 std::pair{link, "is a symlink"}}) {
    const auto r = wrap({"/bin/touch", marker.string()}, {"--out", dir.string()});
    EXPECT_EQ(r.exit_status, 2) << dir;
    EXPECT_NE(r.err.find("output directory refused"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(why), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(marker)) << "the job must not start";
  }
}

TEST_F(SecondUser, SymlinksPlantedInASharedStickyDirectoryAreNotFollowed) {
  // /tmp-like: world-writable with the sticky bit, which we accept; the other user knows the
  // run id and plants links under every name we will use.
  fs::create_directories(out_);
  const fs::path shared = out_ / "sticky", victim = out_ / "victim";
  fs::create_directories(shared);
  ::chmod(shared.c_str(), 01777);
  std::ofstream(victim) << "precious\n";
  for (const char* name : {"R.json", "R.rank0.partial.json", "R.write-error", ".hpcsens-write-test-x"})
    ASSERT_EQ(as_user("ln -s " + victim.string() + " " + (shared / name).string()), 0) << name;
  const auto r = run_process({"env", "HPCSENS_RUN_ID=R", HPCSENS_BIN, "run", "--out", shared.string(), "--", "mpirun",
                              "-np", "1", kExit, "0"},
                             kTimeout);
  EXPECT_EQ(r.exit_status, 0) << r.err;
  std::ifstream in(victim);
  std::string content((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(content, "precious\n") << "the planted symlink's target was written";
  // The record has a fresh name of its own (R.<random>.json): the planted link is left alone.
  const fs::path rec_path = record_path(r);
  ASSERT_FALSE(rec_path.empty()) << r.err;
  EXPECT_EQ(rec_path.parent_path(), shared);
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(rec_path))) << rec_path;
  EXPECT_TRUE(fs::is_symlink(shared / "R.json"));
  std::ifstream rec(rec_path);
  EXPECT_EQ(nlohmann::json::parse(rec).value("complete", false), true);
}

// No record is not success: a full file system ends `hpcsens run` with 74, naming the file and the
// cause and saying the job's own status; --keep-job-status returns the job's status instead.
TEST_F(HostileRun, FullFileSystemIsReportedAsSuchWithItsOwnExitStatus) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to mount a tmpfs";
  fs::create_directories(out_);
  const fs::path mnt = out_ / "small";
  fs::create_directories(mnt);
  ASSERT_EQ(::mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=64k,mode=0755"), 0);
  sh("dd if=/dev/zero of=" + (mnt / "fill").string() + " bs=4k 2>/dev/null");  // until ENOSPC
  const auto r = wrap({"mpirun", "-np", "1", kExit, "3"}, {"--out", mnt.string()});
  const auto kept = wrap({"mpirun", "-np", "1", kExit, "3"}, {"--out", mnt.string(), "--keep-job-status"});
  ::umount2(mnt.c_str(), MNT_DETACH);
  EXPECT_EQ(r.exit_status, 74) << "no record: " << r.err;
  EXPECT_NE(r.err.find("the job exited with status 3"), std::string::npos) << r.err;
  EXPECT_EQ(kept.exit_status, 3) << kept.err;
  EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(mnt.string() + "/"), std::string::npos) << "names the file: " << r.err;
  EXPECT_EQ(r.err.find("was this an MPI program"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace hpcsens::testing
