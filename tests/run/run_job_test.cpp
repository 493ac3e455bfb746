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
  // The job records that it got SIGTERM, then exits 7: proof that the signal reached it.
  req.argv = {"/bin/sh", "-c", "trap 'echo got > " + trapped.string() + "; exit 7' TERM; sleep 20 & wait"};
  req.out_dir = out.string();
  req.quiet = true;
  std::thread killer([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    ::kill(::getpid(), SIGTERM);
  });
  const auto res = run_job(req);
  killer.join();
  EXPECT_EQ(res.exit_status, 7);
  EXPECT_TRUE(fs::exists(trapped));
  fs::remove_all(out);
  fs::remove(trapped);
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

}  // namespace
}  // namespace hpcsens::run
