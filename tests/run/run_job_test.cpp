// run_job with real processes (no MPI needed): exit status, signals, timeout, pass-through.
#include "run/run_job.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

namespace hpcsens::run {
namespace {
namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("hpcsens-runjob-" + std::to_string(::getpid()) + "-" + name);
  fs::remove_all(p);
  return p;
}

TEST(RunId, SortableUtcAndUnique) {
  EXPECT_EQ(make_run_id(0, 42), "19700101T000000Z-42");
  EXPECT_EQ(make_run_id(1700000000, 7, 2), "20231114T221320Z-7.2");
  EXPECT_EQ(utc_iso8601(1700000000), "2023-11-14T22:13:20Z");
}

TEST(ExitStatus, CodeOr128PlusSignal) {
  EXPECT_EQ(exit_status_of(3 << 8), 3);
  EXPECT_EQ(exit_status_of(SIGKILL), 128 + SIGKILL);
}

TEST(RunJob, KeepsTheExitStatusOfANonMpiCommand) {
  const auto out = scratch("exit");
  RunRequest req;
  req.argv = {"/bin/sh", "-c", "exit 3"};
  req.out_dir = out.string();
  req.quiet = true;
  const auto res = run_job(req);
  EXPECT_EQ(res.exit_status, 3);
  EXPECT_EQ(res.launcher, "singleton");
  EXPECT_TRUE(res.record_path.empty());
  EXPECT_FALSE(res.error.empty());
  fs::remove_all(out);
}

TEST(RunJob, MissingProgramIs127) {
  RunRequest req;
  req.argv = {"/nonexistent/program"};
  req.out_dir = scratch("missing").string();
  req.quiet = true;
  const auto res = run_job(req);
  EXPECT_EQ(res.exit_status, 127);
  EXPECT_NE(res.error.find("/nonexistent/program"), std::string::npos);
  fs::remove_all(req.out_dir);
}

TEST(RunJob, UnwritableOutDirStillRunsTheJob) {
  const auto marker = scratch("marker");
  RunRequest req;
  req.argv = {"/bin/sh", "-c", "touch " + marker.string() + "; exit 4"};
  req.out_dir = "/dev/null/not-a-dir";
  req.quiet = true;
  const auto res = run_job(req);
  EXPECT_EQ(res.exit_status, 4);
  EXPECT_TRUE(fs::exists(marker)) << "the job must run even when the record cannot be written";
  ASSERT_FALSE(res.warnings.empty());
  EXPECT_NE(res.warnings[0].find("/dev/null/not-a-dir"), std::string::npos);
  EXPECT_NE(res.error.find("output directory '/dev/null/not-a-dir' is not writable"), std::string::npos)
      << res.error;
  fs::remove(marker);
}

TEST(RunJob, TimeoutStopsTheWholeProcessGroup) {
  const auto out = scratch("timeout");
  RunRequest req;
  // A child of the job also sleeps: the group kill must end both.
  req.argv = {"/bin/sh", "-c", "sleep 30 & sleep 30; wait"};
  req.out_dir = out.string();
  req.timeout_s = 0.3;
  req.quiet = true;
  const auto t0 = std::chrono::steady_clock::now();
  const auto res = run_job(req);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(res.timed_out);
  EXPECT_EQ(res.exit_status, 128 + SIGTERM);
  EXPECT_LT(took, 10.0);
  fs::remove_all(out);
}

TEST(RunJob, ForwardsSigtermToTheJob) {
  const auto out = scratch("signal");
  const auto trapped = scratch("trapped");
  RunRequest req;
  const auto ready = scratch("trap-ready");
  // The job records that it got SIGTERM, then exits 7: proof that the signal reached it. It says
  // when its trap is set, and only then is the signal sent: a signal before the trap (a loaded
  // machine starts the shell late) would test nothing.
  req.argv = {"/bin/sh", "-c", "trap 'echo got > " + trapped.string() + "; exit 7' TERM; : > " +
                                   ready.string() + "; sleep 20 & wait"};
  req.out_dir = out.string();
  req.quiet = true;
  std::thread killer([ready] {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!fs::exists(ready) && std::chrono::steady_clock::now() < give_up)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ::kill(::getpid(), SIGTERM);
  });
  const auto res = run_job(req);
  killer.join();
  EXPECT_EQ(res.exit_status, 7);
  EXPECT_TRUE(fs::exists(trapped));
  fs::remove_all(out);
  fs::remove(trapped);
  fs::remove(ready);
}

TEST(RunJob, SetsOurEnvironmentOnlyInTheJob) {
  const auto out = scratch("env");
  const auto dump = scratch("envdump");
  RunRequest req;
  req.argv = {"/bin/sh", "-c", "env > " + dump.string()};
  req.out_dir = out.string();
  req.events = "PAPI_TOT_INS";
  req.run_id = "fixed-id";
  req.quiet = true;
  const auto res = run_job(req);
  EXPECT_EQ(res.exit_status, 0);
  std::ifstream in(dump);
  const std::string env((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(env.find("HPCSENS_RUN_ID=fixed-id"), std::string::npos);
  EXPECT_NE(env.find("HPCSENS_EVENTS=PAPI_TOT_INS"), std::string::npos);
  EXPECT_NE(env.find("HPCSENS_OUT=" + fs::absolute(out).string()), std::string::npos);
  EXPECT_NE(env.find("HPCSENS_LAUNCHER=singleton"), std::string::npos);
  EXPECT_NE(env.find(R"(HPCSENS_COMMAND=["/bin/sh","-c",)"), std::string::npos);
  EXPECT_EQ(::getenv("HPCSENS_RUN_ID"), nullptr) << "our own environment is unchanged";
  fs::remove_all(out);
  fs::remove(dump);
}

TEST(RunJob, KeepsTheUsersOwnLdPreloadAfterOurs) {
  const auto out = scratch("ldpreload");
  const auto dump = scratch("ldpreload-dump");
  ::setenv("LD_PRELOAD", "libm.so.6", 1);
  RunRequest req;
  req.argv = {"/bin/sh", "-c", "printf %s \"$LD_PRELOAD\" > " + dump.string()};
  req.out_dir = out.string();
  req.quiet = true;
  const auto res = run_job(req);
  ::unsetenv("LD_PRELOAD");
  EXPECT_EQ(res.exit_status, 0);
  std::ifstream in(dump);
  std::string value;
  std::getline(in, value);
  EXPECT_EQ(value, find_preload_library() + ":libm.so.6");
  fs::remove_all(out);
  fs::remove(dump);
}

TEST(RunJob, UnidentifiedMpirunRunsUnmeasuredWithItsStatus) {
  // An `mpirun` whose --version names no MPI we know: the job must run as given, and nothing
  // (no LD_PRELOAD) may be added to its environment.
  const auto dir = scratch("fake-mpirun");
  fs::create_directories(dir);
  const auto fake = dir / "mpirun";
  std::ofstream(fake) << "#!/bin/sh\n"
                         "if [ \"$1\" = --version ]; then echo 'SomeMPI launcher 1.0'; exit 0; fi\n"
                         "[ -z \"$LD_PRELOAD\" ] || exit 99\n"
                         "exit 5\n";
  fs::permissions(fake, fs::perms::owner_all);
  RunRequest req;
  req.argv = {fake.string(), "-np", "2", "./app"};
  req.out_dir = (dir / "out").string();
  req.quiet = true;
  const auto res = run_job(req);
  EXPECT_EQ(res.launcher, "unknown");
  EXPECT_EQ(res.exit_status, 5) << "99 would mean LD_PRELOAD reached the launcher";
  ASSERT_FALSE(res.warnings.empty());
  EXPECT_NE(res.warnings[0].find("without measurement"), std::string::npos);
  EXPECT_TRUE(res.record_path.empty());
  fs::remove_all(dir);
}

TEST(RunJob, OpenMpiGetsDashXArgumentsAndNoPreloadInItsOwnEnvironment) {
  // A stand-in `mpirun` that answers --version like Open MPI and records what it was given.
  const auto dir = scratch("ompi-mpirun");
  fs::create_directories(dir);
  const auto fake = dir / "mpirun";
  const auto args = dir / "args";
  std::ofstream(fake) << "#!/bin/sh\n"
                         "if [ \"$1\" = --version ]; then echo 'mpirun (Open MPI) 4.1.4'; exit 0; fi\n"
                         "[ -z \"$LD_PRELOAD\" ] || exit 99\n"
                         "for a in \"$@\"; do printf '%s\\n' \"$a\"; done > " + args.string() + "\n";
  fs::permissions(fake, fs::perms::owner_all);
  RunRequest req;
  req.argv = {fake.string(), "-np", "2", "./app", "x y"};
  req.out_dir = (dir / "out").string();
  req.run_id = "R";
  req.quiet = true;
  const auto res = run_job(req);
  EXPECT_EQ(res.launcher, "openmpi");
  ASSERT_EQ(res.exit_status, 0) << "99: LD_PRELOAD leaked into the launcher";
  std::ifstream in(args);
  std::vector<std::string> got;
  for (std::string line; std::getline(in, line);) got.push_back(line);
  ASSERT_EQ(got.size(), 2 * 7 + 4u);
  for (int i = 0; i < 7; ++i) EXPECT_EQ(got[2 * i], "-x");
  EXPECT_EQ(got[1].substr(0, std::string("HPCSENS_OUT=").size()), "HPCSENS_OUT=");
  EXPECT_EQ(got[3], "HPCSENS_RUN_ID=R");
  EXPECT_EQ(got[13], "LD_PRELOAD=" + find_preload_library());
  EXPECT_EQ((std::vector<std::string>(got.end() - 4, got.end())),
            (std::vector<std::string>{"-np", "2", "./app", "x y"}));
  fs::remove_all(dir);
}

TEST(ExplainNoRanks, SaysWhatHappenedToTheJob) {
  const std::string tail = " before any rank reached MPI_Finalize: no record";
  EXPECT_EQ(explain_no_ranks(0, true, 2), "the job exceeded --timeout (2 s)" + tail);
  EXPECT_EQ(explain_no_ranks(SIGKILL, false, 0), "the job was killed by signal 9" + tail);
  EXPECT_EQ(explain_no_ranks(3 << 8, false, 0), "the job exited with status 3" + tail);
  EXPECT_EQ(explain_no_ranks(139 << 8, false, 0),
            "the job exited with status 139 (a rank killed by signal 11?)" + tail);
  EXPECT_EQ(explain_no_ranks(0, false, 0), "no MPI ranks reported (was this an MPI program?)");
}

TEST(RunJob, QuietStillPrintsTheTimeoutProblem) {
  RunRequest req;
  req.argv = {"/bin/sleep", "30"};
  req.timeout_s = 0.3;
  req.quiet = true;
  ::testing::internal::CaptureStderr();
  const RunResult r = run_job(req);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(r.timed_out);
  EXPECT_NE(err.find("hpcsens: warning: the job exceeded its time limit"), std::string::npos) << err;
}

}  // namespace
}  // namespace hpcsens::run
