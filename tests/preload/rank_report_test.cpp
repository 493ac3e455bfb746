#include "preload/rank_record/rank_report.h"

#include <map>

#include <gtest/gtest.h>

namespace hpcsens::preload {
namespace {

CallTotals sample_totals() {
  CallTotals t{};
  t[call::MPI_Send] = {3, 2'000'000'000, 1200};     // 2 s
  t[call::MPI_Allreduce] = {5, 500'000'000, 400};   // 0.5 s
  t[call::write] = {2, 250'000'000, 8192};          // 0.25 s
  t[call::read] = {1, 125'000'000, 4096};           // 0.125 s
  t[call::MPI_File_write_at] = {1, 125'000'000, 1000};
  t[call::MPI_File_open] = {1, 0, 0};
  return t;
}

TEST(RankRecord, SplitsMpiAndIoTimeAndBytes) {
  const auto r = make_rank_record(sample_totals(), 1e-9, 3, "node7", 42, 10.0, 11.0, 21.0, 22.0);
  EXPECT_EQ(r.rank, 3);
  EXPECT_EQ(r.host, "node7");
  EXPECT_DOUBLE_EQ(r.wall_s, 10.0);
  EXPECT_DOUBLE_EQ(r.mpi_s, 2.5);
  EXPECT_DOUBLE_EQ(r.io_s, 0.5);
  EXPECT_DOUBLE_EQ(r.compute_s, 7.0);
  EXPECT_EQ(r.io_bytes_written, 9192u);
  EXPECT_EQ(r.io_bytes_read, 4096u);
  ASSERT_EQ(r.mpi_calls.size(), 2u);
  EXPECT_EQ(r.mpi_calls.at("MPI_Send").count, 3u);
  EXPECT_EQ(r.mpi_calls.at("MPI_Send").bytes, 1200u);
  EXPECT_EQ(r.io_calls.count("MPI_File_write_at"), 1u);
  EXPECT_EQ(r.io_calls.count("MPI_File_open"), 1u);
  EXPECT_EQ(r.mpi_calls.count("MPI_File_open"), 0u);
  EXPECT_EQ(r.io_calls.count("MPI_Recv"), 0u);  // calls never made are left out
}

TEST(RankRecord, TicksAreConvertedWithTheMeasuredRate) {
  CallTotals t{};
  t[call::MPI_Wait] = {1, 3'000'000'000, 0};  // 3e9 TSC ticks at 3 GHz
  const auto r = make_rank_record(t, 1.0 / 3e9, 0, "h", 1, 0, 0, 5, 5);
  EXPECT_DOUBLE_EQ(r.mpi_calls.at("MPI_Wait").seconds, 1.0);
  EXPECT_DOUBLE_EQ(r.compute_s, 4.0);
}

TEST(RankRecord, ComputeIsNeverNegative) {
  CallTotals t{};
  t[call::MPI_Wait] = {4, 4'000'000'000, 0};  // four threads waiting 1 s each in a 1 s span
  const auto r = make_rank_record(t, 1e-9, 0, "h", 1, 0, 0, 1, 1);
  EXPECT_DOUBLE_EQ(r.compute_s, 0.0);
}

TEST(ProgramLabel, NamesTheProgramNotItsLastArgument) {
  // OpenFOAM's "-parallel" was the page title before (issue 20).
  EXPECT_EQ(program_label({"/opt/of/bin/simpleFoam", "-case", "x", "-parallel"}), "simpleFoam");
  EXPECT_EQ(program_label({"/usr/bin/python3", "-u", "/home/a/run.py", "--steps", "3"}),
            "python3 run.py");
  EXPECT_EQ(program_label({"python3.11", "-m", "mpi4py.bench", "helloworld"}),
            "python3.11 -m mpi4py.bench");
  EXPECT_EQ(program_label({"/usr/bin/python3", "-c", "from mpi4py import MPI"}), "python3");
  EXPECT_EQ(program_label({"Rscript", "fit.R"}), "Rscript fit.R");
  EXPECT_EQ(program_label({"./shell"}), "shell");  // not "sh": a prefix alone is not a name
  EXPECT_EQ(program_label({}), "");
}

TEST(RunAssembly, FillsJobTimingAndImbalance) {
  JobInfo job{{"mpirun", "-np", "2", "./a"}, "openmpi", "Open MPI v4.1.4", "2026-01-01T00:00:00Z",
              "a"};
  auto r1 = make_rank_record(sample_totals(), 1e-9, 1, "a", 2, 0.0, 1.0, 11.0, 12.0);
  auto r0 = make_rank_record(CallTotals{}, 1e-9, 0, "a", 1, 0.0, 1.0, 9.0, 12.5);
  r1.counters_status = "counters unavailable: perf::X not supported [Event does not exist]";
  const auto run = assemble_run(job, {r1, r0});
  ASSERT_EQ(run.ranks.size(), 2u);
  EXPECT_EQ(run.ranks[0].rank, 0);
  EXPECT_EQ(run.job.nranks, 2);
  EXPECT_EQ(run.job.hosts, std::vector<std::string>{"a"});
  EXPECT_EQ(run.job.command.size(), 4u);
  EXPECT_EQ(run.job.program, "a");
  EXPECT_DOUBLE_EQ(run.timing.job_s, 12.0);  // min over ranks of t3 - t0
  ASSERT_TRUE(run.timing.job_sync_s.has_value());
  EXPECT_DOUBLE_EQ(*run.timing.job_sync_s, 10.0);  // max t2 - min t1
  EXPECT_EQ(run.counters_status,
            "rank 1: counters unavailable: perf::X not supported [Event does not exist]");
  // The same status on every rank is said once, without a rank.
  r0.counters_status = r1.counters_status;
  EXPECT_EQ(assemble_run(job, {r1, r0}).counters_status, r1.counters_status);
  EXPECT_GT(run.imbalance.max_over_mean, 1.0);
  EXPECT_TRUE(run.complete);
}

TEST(RunAssembly, IncompleteRankMakesTheRunIncomplete) {
  auto r = make_rank_record(CallTotals{}, 1e-9, 0, "a", 1, 0, 1, 2, 2);
  r.complete = false;
  EXPECT_FALSE(assemble_run(JobInfo{}, {r}).complete);
}

TEST(Environment, CommandFromJsonArrayElseFallback) {
  const std::vector<std::string> fb{"./prog"};
  EXPECT_EQ(command_from_env(R"(["mpirun","-np","4","./a b"])", fb),
            (std::vector<std::string>{"mpirun", "-np", "4", "./a b"}));
  EXPECT_EQ(command_from_env(nullptr, fb), fb);
  EXPECT_EQ(command_from_env("not json", fb), fb);
  EXPECT_EQ(command_from_env(R"(["a", 3])", fb), fb);
}

TEST(Environment, LauncherFromHpcsensElseFromLauncherVariables) {
  std::map<std::string, const char*> env;
  auto get = [&env](const char* n) -> const char* {
    auto it = env.find(n);
    return it == env.end() ? nullptr : it->second;
  };
  EXPECT_EQ(detect_launcher(get), "singleton");
  env["PMI_RANK"] = "0";
  EXPECT_EQ(detect_launcher(get), "mpich-hydra");
  env["OMPI_COMM_WORLD_SIZE"] = "2";
  EXPECT_EQ(detect_launcher(get), "openmpi");
  env["HPCSENS_LAUNCHER"] = "slurm";
  EXPECT_EQ(detect_launcher(get), "slurm");
}

TEST(Naming, FirstLineTimesAndPaths) {
  EXPECT_EQ(first_line("Open MPI v4.1.4, package: Debian\nsecond"), "Open MPI v4.1.4, package: Debian");
  EXPECT_EQ(first_line("MPICH Version: 4.0,\r\n"), "MPICH Version: 4.0");
  // What MPICH 4 really returns (issue 19): tabs between label and value, several lines.
  EXPECT_EQ(first_line("MPICH Version:\t4.0.2\nMPICH Release date:\tThu Apr  7 2022\n"),
            "MPICH Version: 4.0.2");
  EXPECT_EQ(first_line(" \tMPICH  Version:\t\t4.0 , \t\n"), "MPICH Version: 4.0");
  EXPECT_EQ(first_line("\t\n"), "");
  EXPECT_EQ(utc_iso8601(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(make_run_id(86400, 77), "run-19700102T000000Z-77");
  EXPECT_EQ(record_path("out", "r1"), "out/r1.*.json");
  EXPECT_EQ(partial_path("out", "r1", 12), "out/r1.rank12.*.partial.json");
}

}  // namespace
}  // namespace hpcsens::preload
