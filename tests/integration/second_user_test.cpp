// Issue 22's attacks, each as a real second user (created and removed by the test) against the
// real `hpcsens run`/`hpcsens report` running as root, racing where the attack races: a parent of
// --out swapped for a symlink while the job starts (root's mpirun must never read the other
// user's appfile), a symlink higher up a report's -o path, record names planted in a shared
// sticky --out, a preload directory another user can write, and a read-only --out.
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

class Attack : public SecondUser {
 protected:
  // A directory owned by the second user (mode 0755) inside out_.
  fs::path theirs(const std::string& name) {
    fs::create_directories(out_);
    const fs::path d = out_ / name;
    fs::create_directories(d);
    EXPECT_EQ(::chown(d.c_str(), uid_, static_cast<gid_t>(-1)), 0);
    return d;
  }
  fs::path shared_sticky() {
    fs::create_directories(out_ / "shared");
    ::chmod((out_ / "shared").c_str(), 01777);
    return out_ / "shared";
  }
};

// The exploit: --out under a directory the other user owns. Old hpcsens checked only the last
// component, created `out` there and handed mpirun `<dir>/out/.RUNID.appfile` by name; the other
// user swapped `out` for a symlink to a directory holding their own appfile, and root ran it.
TEST_F(Attack, ParentSwapCannotHandRootsMpirunAnotherUsersAppfile) {
  const fs::path dir = theirs("eve");
  const fs::path evil = dir / "evil", pwned = out_ / "pwned";  // out_ is root's: only root can create it
  const fs::path app = out_ / "app.txt";
  std::ofstream(app) << "-np 1 " << kExit << " 0\n";
  ASSERT_EQ(as_user("mkdir " + evil.string() + " && printf \"%s\\n\" \"-np 1 /usr/bin/touch " + pwned.string() +
                    "\" > " + evil.string() + "/.R.appfile"),
            0);
  // The racer: whenever root's `out` appears, move it away and put a symlink to `evil` there.
  const std::string o = (dir / "out").string();
  race("if [ -d " + o + " ] && [ ! -L " + o + " ]; then mv " + o + " " + (dir / "old").string() + "$(date +%N); ln -s " +
       evil.string() + " " + o + "; fi");
  for (int attempt = 0; attempt < 3; ++attempt) {
    const auto r = run_process({"env", "HPCSENS_RUN_ID=R", HPCSENS_BIN, "run", "--out", (dir / "out").string(), "--",
                                "mpirun", "--app", app.string()},
                               kTimeout);
    EXPECT_EQ(r.exit_status, 2) << r.err;
    EXPECT_NE(r.err.find(dir.string() + ": is owned by another user"), std::string::npos) << r.err;
  }
  stop_racers();
  EXPECT_FALSE(fs::exists(pwned)) << "root ran the other user's appfile";
  for (const auto& e : fs::directory_iterator(dir)) {
    struct stat st {};
    ASSERT_EQ(::lstat(e.path().c_str(), &st), 0);
    EXPECT_EQ(static_cast<int>(st.st_uid), uid_) << "root created " << e.path() << " in the other user's directory";
  }
}

// `report -o a/link/sub/r.txt`: the other user's symlink higher up the path, pointing at a
// directory of root's (think /etc with cron.d below it), is not followed; old hpcsens checked only
// `sub`, found it root's, and wrote there.
TEST_F(Attack, ReportOutputDoesNotFollowAnotherUsersSymlinkHigherUp) {
  const auto run = wrap({"mpirun", "-np", "1", kExit, "0"});
  const std::string rec = record_path(run);
  ASSERT_FALSE(rec.empty()) << run.err;
  const fs::path shared = shared_sticky(), victim = out_ / "victim";
  fs::create_directories(victim / "sub");
  ASSERT_EQ(as_user("ln -s " + victim.string() + " " + (shared / "link").string()), 0);
  const auto r = run_process({HPCSENS_BIN, "report", rec, "-o", (shared / "link" / "sub" / "r.txt").string()}, kTimeout);
  EXPECT_EQ(r.exit_status, 2) << r.err;
  EXPECT_NE(r.err.find((shared / "link").string() + ": is a symlink owned by another user"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(victim / "sub" / "r.txt")) << "root wrote through the other user's link";
}

// Names planted in a shared sticky --out (the run id is on mpirun's command line for all to see):
// directories named like the record and the note, and a racer planting a directory for every new
// name it sees. The record still lands, under a fresh name, and is the one reported.
TEST_F(Attack, PlantedNamesInASharedOutDoNotLoseTheRecord) {
  const fs::path shared = shared_sticky();
  for (const char* name : {"R.json", "R.write-error", "R.rank0.partial.json", "R.rank1.partial.json"})
    ASSERT_EQ(as_user("mkdir " + (shared / name).string()), 0) << name;
  race("for f in " + shared.string() + "/.R*; do n=${f##*/.}; mkdir " + shared.string() + "/${n%%.tmp.*} 2>/dev/null; done");
  const auto r = run_process({"env", "HPCSENS_RUN_ID=R", HPCSENS_BIN, "run", "--out", shared.string(), "--", "mpirun",
                              "--oversubscribe", "-np", "2", kExit, "0"},
                             kTimeout);
  stop_racers();
  EXPECT_EQ(r.exit_status, 0) << r.err;
  const fs::path rec = record_path(r);
  ASSERT_FALSE(rec.empty()) << r.err;
  struct stat st {};
  ASSERT_EQ(::lstat(rec.c_str(), &st), 0) << rec;
  EXPECT_TRUE(S_ISREG(st.st_mode)) << rec << " is not the record file";
  EXPECT_EQ(st.st_uid, 0u);
  std::ifstream in(rec);
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j.value("complete", false), true);
  EXPECT_EQ(j.at("ranks").size(), 2u);
}

// HPCSENS_PRELOAD_DIR naming another user's world-writable directory: root would load their
// library into every rank and run their "agent". Refused before the job, naming the directory.
TEST_F(Attack, PreloadDirectoryOtherUsersCanWriteIsRefused) {
  const fs::path lib = theirs("lib"), marker = out_ / "started";
  ::chmod(lib.c_str(), 0777);
  const fs::path ours = fs::path(HPCSENS_BIN).parent_path().parent_path() / "lib" / "libhpcsens_preload.so";
  fs::copy_file(ours, lib / "libhpcsens_preload.so");
  const auto r = run_process({"env", "HPCSENS_PRELOAD_DIR=" + lib.string(), HPCSENS_BIN, "run", "--out",
                              (out_ / "o").string(), "--", "mpirun", "-np", "1", "/usr/bin/touch", marker.string()},
                             kTimeout);
  EXPECT_EQ(r.exit_status, 2) << r.err;
  EXPECT_NE(r.err.find("refusing to load the preload"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(lib.string()), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(marker)) << "the job must not start";
}

// A read-only output directory: the job runs, hpcsens exits 74 naming the directory and the
// cause and saying the job's own status.
TEST_F(Attack, ReadOnlyOutputDirectoryEndsWithTheNoRecordStatus) {
  fs::create_directories(out_ / "ro");
  ASSERT_EQ(::mount("tmpfs", (out_ / "ro").c_str(), "tmpfs", MS_RDONLY, "size=64k,mode=0755"), 0);
  const auto r = wrap({"mpirun", "-np", "1", kExit, "0"}, {"--out", (out_ / "ro").string()});
  ::umount2((out_ / "ro").c_str(), MNT_DETACH);
  EXPECT_EQ(r.exit_status, 74) << r.err;
  EXPECT_NE(r.err.find((out_ / "ro").string()), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Read-only file system"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("the job exited with status 0"), std::string::npos) << r.err;
}

// The program's own `--app FILE` (after the program name) is its argument: it reaches the program
// unchanged and is not read as mpirun's appfile.
TEST_F(Attack, ProgramsOwnAppArgumentIsLeftAlone) {
  fs::create_directories(out_);
  const fs::path input = out_ / "input.txt";
  std::ofstream(input) << "-np 1 /bin/true\n";  // even one that reads as an appfile
  const auto r = wrap({"mpirun", "-np", "1", "/bin/echo", "--app", input.string()}, {"--keep-job-status"});
  EXPECT_EQ(r.exit_status, 0) << r.err;
  EXPECT_EQ(r.out, "--app " + input.string() + "\n");
}

}  // namespace
}  // namespace hpcsens::testing
