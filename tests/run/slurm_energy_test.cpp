// Slurm's ConsumedEnergy beside hpcsens' own readings (run/slurm_energy.h): sacct's parsable
// output (-n -P, times as epoch seconds through SLURM_TIME_FORMAT=%s, as Slurm prints them) read
// into the record's energy.slurm, the run's own steps only, with a reason whenever there is no number.
#include "run/slurm_energy.h"

#include "energy/energy_text.h"

#include <gtest/gtest.h>
#include <stdlib.h>

namespace hpcsens::run {
namespace {

const SacctQuery kRun{"4711", 1000, 1100};
}  // namespace
const SacctQuery kRunForSummary{"4711", 1000, 1100};
namespace {

TEST(SlurmEnergy, SumsTheRunsOwnStepsOnly) {
  // The job line, its batch and extern steps, and a step from before this run do not count.
  const std::string out =
      "4711|900|Unknown|\n"
      "4711.batch|900|Unknown|\n"
      "4711.extern|900|Unknown|\n"
      "4711.0|950|990|5000\n"
      "4711.1|1001|1050|12345\n"
      "4711.2|1060|1099|655\n";
  bool final = false;
  const auto e = slurm_energy_from_sacct(out, kRun, &final);
  EXPECT_TRUE(final);
  ASSERT_TRUE(e.value("available", false)) << e.dump();
  EXPECT_EQ(e["energy_j"].get<unsigned long long>(), 12345u + 655u);
  ASSERT_EQ(e["steps"].size(), 2u);
  EXPECT_EQ(e["steps"][0]["step"], "4711.1");
  EXPECT_EQ(e["source"], "slurm sacct ConsumedEnergyRaw");
  EXPECT_EQ(e["job_id"], "4711");
}

TEST(SlurmEnergy, AStepWithoutAnEndYetIsNotFinalAndSaysHowToReadItLater) {
  bool final = true;
  const auto e = slurm_energy_from_sacct("4711.0|1001|Unknown|\n", kRun, &final);
  EXPECT_FALSE(final);
  EXPECT_FALSE(e.value("available", true));
  EXPECT_NE(e.value("reason", "").find("no end in Slurm's accounting yet"), std::string::npos) << e.dump();
  EXPECT_NE(e.value("reason", "").find("sacct -j 4711"), std::string::npos) << e.dump();
}

TEST(SlurmEnergy, NoEnergyPluginGivesAReasonNotZeroJoules) {
  for (const std::string joules : {"0", "", "18446744073709551614"}) {
    bool final = false;
    const auto e = slurm_energy_from_sacct("4711.0|1001|1050|" + joules + "\n", kRun, &final);
    EXPECT_TRUE(final) << joules;
    EXPECT_FALSE(e.value("available", true)) << joules;
    EXPECT_FALSE(e.contains("energy_j")) << joules;
    EXPECT_NE(e.value("reason", "").find("AcctGatherEnergyType"), std::string::npos) << e.dump();
  }
}

TEST(SlurmEnergy, AsksAgainWhileAccountingHasNotCaughtUp) {
  int calls = 0;
  const auto e = slurm_energy(kRun, [&](const std::vector<std::string>& argv, const std::vector<std::string>& env) {
    EXPECT_EQ(argv, sacct_argv(kRun));
    EXPECT_EQ(env, std::vector<std::string>{"SLURM_TIME_FORMAT=%s"});
    mpi::Captured c;
    c.started = true, c.status = 0;
    c.output = ++calls == 1 ? "4711|900|Unknown|\n" : "4711|900|Unknown|\n4711.0|1001|1050|777\n";
    return c;
  }, 5, 0.0);
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(e.value("energy_j", 0u), 777u) << e.dump();
}

TEST(SlurmEnergy, GivesUpAfterItsTriesWithTheLastReason) {
  int calls = 0;
  const auto e = slurm_energy(kRun, [&](const std::vector<std::string>&, const std::vector<std::string>&) {
    ++calls;
    mpi::Captured c;
    c.started = true, c.status = 0;
    return c;  // nothing listed, ever
  }, 3, 0.0);
  EXPECT_EQ(calls, 3);
  EXPECT_NE(e.value("reason", "").find("no step of Slurm job 4711"), std::string::npos) << e.dump();
}

TEST(SlurmEnergy, SacctFailingOrMissingIsSaidEscaped) {
  const auto failed = slurm_energy(kRun, [](const std::vector<std::string>&, const std::vector<std::string>&) {
    mpi::Captured c;
    c.started = true, c.status = 1;
    c.output = "sacct: error: Slurm accounting storage is disabled\x1b[2J\nsecond line\n";
    return c;
  });
  const std::string why = failed.value("reason", "");
  EXPECT_NE(why.find("sacct -j 4711 failed (exit 1): sacct: error: Slurm accounting storage is disabled"), std::string::npos) << why;
  EXPECT_EQ(why.find('\x1b'), std::string::npos);
  EXPECT_EQ(why.find("second line"), std::string::npos);
  const auto missing = slurm_energy(kRun, [](const std::vector<std::string>&, const std::vector<std::string>&) {
    return mpi::Captured{};
  });
  EXPECT_NE(missing.value("reason", "").find("sacct was not found"), std::string::npos) << missing.dump();
}

TEST(SlurmEnergy, OutsideAnAllocationThereIsNothingToRecord) {
  const char* had = std::getenv("SLURM_JOB_ID");
  const std::string saved = had ? had : "";
  ::unsetenv("SLURM_JOB_ID");
  EXPECT_TRUE(slurm_energy_for_run(1000, 1100).is_null());
  if (had) ::setenv("SLURM_JOB_ID", saved.c_str(), 1);
}

TEST(CaptureOutput, ReturnsBothStreamsTheStatusAndTheExtraEnvironment) {
  const auto c = mpi::capture_output({"sh", "-c", "echo out; echo err >&2; echo \"$HPCSENS_T\"; exit 3"}, 30.0,
                                     {"HPCSENS_T=given"});
  EXPECT_TRUE(c.started);
  EXPECT_FALSE(c.timed_out);
  EXPECT_EQ(c.status, 3);
  EXPECT_NE(c.output.find("out\n"), std::string::npos);
  EXPECT_NE(c.output.find("err\n"), std::string::npos);
  EXPECT_NE(c.output.find("given\n"), std::string::npos);
  EXPECT_FALSE(mpi::capture_output({"/nonexistent/hpcsens-no-such-tool"}, 5.0).started);
}

TEST(CaptureOutput, AHelperThatHangsIsEndedAtItsDeadline) {
  const auto c = mpi::capture_output({"sh", "-c", "echo started; exec sleep 600"}, 0.5);
  EXPECT_TRUE(c.started);
  EXPECT_TRUE(c.timed_out);
  EXPECT_EQ(c.status, -1);
  EXPECT_NE(c.output.find("started"), std::string::npos);
}

TEST(CaptureOutput, OutputIsCappedAtItsLimit) {
  const auto c = mpi::capture_output({"sh", "-c", "yes | head -c 100000"}, 30.0, {}, 1000);
  EXPECT_EQ(c.output.size(), 1000u);
}

}  // namespace
}  // namespace hpcsens::run

namespace hpcsens::energy {
namespace {

TEST(SlurmEnergySummary, SaysTheFigureOrWhyThereIsNone) {
  bool final = false;
  const auto got = run::slurm_energy_from_sacct("4711.1|1001|1050|12345\n4711.2|1060|1099|655\n", run::kRunForSummary, &final);
  const std::string text = slurm_energy_summary({{"slurm", got}});
  EXPECT_EQ(text.rfind("13000 J over step(s) 4711.1, 4711.2 of Slurm job 4711", 0), 0u) << text;
  EXPECT_EQ(slurm_energy_summary({{"slurm", {{"available", false}, {"reason", "not available: why"}}}}), "not available: why");
  EXPECT_EQ(slurm_energy_summary({{"available", false}}), "");  // not inside an allocation: no row
}

}  // namespace
}  // namespace hpcsens::energy
