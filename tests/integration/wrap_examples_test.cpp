// End to end: real `mpirun -np 4 --oversubscribe` through build/bin/hpcsens run on every example,
// checked against what each example provably does (see the comment at the top of each example).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>

#include <nlohmann/json.hpp>

#include "run_fixture.h"

namespace hpcsens::testing {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

const std::string kExamples = HPCSENS_EXAMPLES_DIR;

std::string example(const std::string& name) { return kExamples + "/example_" + name; }

std::vector<std::string> mpirun(int np, const std::vector<std::string>& prog) {
  std::vector<std::string> v = {"mpirun", "-np", std::to_string(np), "--oversubscribe"};
  v.insert(v.end(), prog.begin(), prog.end());
  return v;
}

class Wrapped : public HpcsensRunTest {
 protected:
  static std::uint64_t count(const json& rank, const std::string& call) {
    const auto& calls = rank.at("mpi_calls");
    return calls.contains(call) ? calls.at(call).at("count").get<std::uint64_t>() : 0;
  }
};

void expect_design_keys(const json& rec, int nranks) {
  EXPECT_EQ(rec.at("schema"), "hpcsens.run.v1");
  for (const char* k : {"command", "nranks", "launcher", "mpi_library", "hosts", "start_utc"})
    EXPECT_TRUE(rec.at("job").contains(k)) << "job." << k;
  EXPECT_TRUE(rec.at("config").is_object());
  for (const char* k : {"job_s", "job_sync_s", "method"}) EXPECT_TRUE(rec.at("timing").contains(k)) << k;
  for (const char* k : {"max_over_mean", "lbe", "cov"}) EXPECT_TRUE(rec.at("imbalance").contains(k)) << k;
  EXPECT_TRUE(rec.at("counters_status").is_string());
  EXPECT_EQ(rec.at("job").at("nranks"), nranks);
  EXPECT_EQ(rec.at("job").at("launcher"), "openmpi");
  ASSERT_EQ(rec.at("ranks").size(), static_cast<std::size_t>(nranks));
  for (int i = 0; i < nranks; ++i) {
    const auto& r = rec.at("ranks").at(i);
    EXPECT_EQ(r.at("rank"), i);
    for (const char* k : {"host", "wall_s", "mpi_s", "io_s", "compute_s", "mpi_calls", "counters"})
      EXPECT_TRUE(r.contains(k)) << "ranks[" << i << "]." << k;
    const double wall = r.at("wall_s"), mpi = r.at("mpi_s"), io = r.at("io_s"), comp = r.at("compute_s");
    EXPECT_GT(wall, 0);
    EXPECT_NEAR(comp, wall - mpi - io, 1e-9);
    EXPECT_LE(mpi, wall);
  }
  // McCalpin's bound contains the work span of every rank.
  EXPECT_GE(rec.at("timing").at("job_s").get<double>(), rec.at("timing").at("job_sync_s").get<double>());
  EXPECT_EQ(rec.at("complete"), true);
}

TEST_F(Wrapped, StreamTriadRecordAndCallCounts) {
  const auto job = mpirun(4, {example("stream"), "500000"});
  const auto r = wrap(job);
  ASSERT_FALSE(r.timed_out);
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const json rec = record(r);
  expect_design_keys(rec, 4);
  EXPECT_EQ(rec.at("job").at("command"), json(job));
  expect_calls(rec, {{"MPI_Comm_rank", 1}, {"MPI_Comm_size", 1}, {"MPI_Barrier", 10}, {"MPI_Reduce", 1}, {"MPI_Allreduce", 1}});
  // The per-rank table was printed on stderr, with units.
  EXPECT_NE(r.err.find("compute [s]"), std::string::npos);
  EXPECT_NE(r.err.find("load-balance efficiency"), std::string::npos);
  expect_same_stdout(job, r);
}

TEST_F(Wrapped, CppComputeKernelCallCounts) {
  const auto job = mpirun(4, {example("compute"), "5000"});
  const auto r = wrap(job);
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const json rec = record(r);
  expect_design_keys(rec, 4);
  expect_calls(rec, {{"MPI_Comm_rank", 1}, {"MPI_Comm_size", 1}, {"MPI_Bcast", 1}, {"MPI_Barrier", 1}, {"MPI_Allreduce", 1}});
  // MPI_Allreduce of one long long: 8 bytes contributed per rank.
  for (const auto& rank : rec.at("ranks")) EXPECT_EQ(rank.at("mpi_calls").at("MPI_Allreduce").at("bytes"), 8);
  expect_same_stdout(job, r);
}

TEST_F(Wrapped, ImbalancedProgramsSlowRankIsReportedSlowest) {
  const auto job = mpirun(4, {example("imbalance"), "12"});
  const auto r = wrap(job);
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const json rec = record(r);
  expect_design_keys(rec, 4);
  expect_calls(rec, {{"MPI_Comm_rank", 1}, {"MPI_Comm_size", 1}, {"MPI_Barrier", 1}, {"MPI_Allreduce", 1}});
  EXPECT_EQ(rec.at("imbalance").at("slowest").at(0), 3);
  const auto& ranks = rec.at("ranks");
  for (int i = 0; i < 3; ++i) {
    EXPECT_GT(ranks.at(3).at("compute_s").get<double>(), ranks.at(i).at("compute_s").get<double>());
    // The fast ranks wait for rank 3 in the barrier.
    EXPECT_GT(ranks.at(i).at("mpi_s").get<double>(), ranks.at(3).at("mpi_s").get<double>());
  }
  // The statistics are those of the ranks' compute times. (How large the imbalance looks
  // depends on how the oversubscribed cores are shared, so no fixed threshold here.)
  double sum = 0, mx = 0;
  for (const auto& rank : ranks) {
    sum += rank.at("compute_s").get<double>();
    mx = std::max(mx, rank.at("compute_s").get<double>());
  }
  const double mean = sum / 4;
  EXPECT_NEAR(rec.at("imbalance").at("lbe").get<double>(), mean / mx, 1e-9);
  EXPECT_NEAR(rec.at("imbalance").at("max_over_mean").get<double>(), mx / mean, 1e-9);
  EXPECT_GT(rec.at("imbalance").at("max_over_mean").get<double>(), 1.0);
  // The printed summary names rank 3 first among the slowest.
  EXPECT_TRUE(std::regex_search(r.err, std::regex(R"(slowest ranks \(most compute first\)\s+3\b)"))) << r.err;
  expect_same_stdout(job, r);
  // hpcsens run printed exactly what hpcsens report prints for the record, answer first.
  const auto report = run_process({HPCSENS_BIN, "report", record_path(r)}, kTimeout);
  ASSERT_EQ(report.exit_status, 0) << report.err;
  EXPECT_EQ(report.out.rfind("Answer: ", 0), 0u) << report.out;
  EXPECT_NE(r.err.find("\n" + report.out + "hpcsens: record: "), std::string::npos) << r.err << "\n---\n" << report.out;
  // --summary: the answer and the advice only.
  const auto brief = run_process({HPCSENS_BIN, "report", record_path(r), "--summary"}, kTimeout);
  EXPECT_EQ(report.out.rfind(brief.out, 0), 0u) << brief.out;
  EXPECT_EQ(brief.out.find("Ranks"), std::string::npos) << brief.out;
}

TEST_F(Wrapped, FortranCallsAreCounted) {
  const auto job = mpirun(4, {example("fortran")});
  const auto r = wrap(job);
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const json rec = record(r);
  expect_design_keys(rec, 4);
  expect_calls(rec, {{"MPI_Comm_rank", 1}, {"MPI_Comm_size", 1}, {"MPI_Send", 10},
                     {"MPI_Recv", 10},
                     {"MPI_Bcast", 2},
                     {"MPI_Allreduce", 3},
                     {"MPI_Reduce", 1},
                     {"MPI_Barrier", 1}});
  for (const auto& rank : rec.at("ranks")) {
    EXPECT_EQ(rank.at("mpi_calls").at("MPI_Send").at("bytes"), 10 * 4);  // ten default INTEGERs
    EXPECT_EQ(rank.at("mpi_calls").at("MPI_Recv").at("bytes"), 10 * 4);
  }
  expect_same_stdout(job, r);
}

TEST_F(Wrapped, PosixIoBytesAndTime) {
  const fs::path scratch = out_ / "io-scratch";
  fs::create_directories(scratch);
  const auto job = mpirun(4, {example("io"), scratch.string()});
  const auto r = wrap(job);
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const json rec = record(r);
  expect_design_keys(rec, 4);
  expect_calls(rec, {{"MPI_Comm_rank", 1}, {"MPI_Comm_size", 1}, {"MPI_Barrier", 1}, {"MPI_Allreduce", 1}});
  constexpr std::uint64_t kBytes = 4u << 20;
  for (const auto& rank : rec.at("ranks")) {
    EXPECT_EQ(rank.at("io_bytes_written"), kBytes);
    EXPECT_EQ(rank.at("io_bytes_read"), kBytes);
    const auto& io = rank.at("io_calls");
    EXPECT_EQ(io.at("write").at("count"), 4);
    EXPECT_EQ(io.at("write").at("bytes"), kBytes);
    EXPECT_EQ(io.at("read").at("count"), 4);
    EXPECT_EQ(io.at("read").at("bytes"), kBytes);
    EXPECT_EQ(io.at("fsync").at("count"), 1);
    // Writing and fsyncing 4 MiB takes measurable time, and io_s is the sum of the I/O calls.
    const double io_s = rank.at("io_s");
    double sum = 0;
    for (const auto& [name, s] : io.items()) sum += s.at("seconds").get<double>();
    EXPECT_GT(io_s, 0.0);
    EXPECT_NEAR(io_s, sum, 1e-6);
    EXPECT_LT(io_s, rank.at("wall_s").get<double>());
  }
  fs::create_directories(scratch);
  expect_same_stdout(job, r);
}

TEST_F(Wrapped, JobExitStatus3Propagates) {
  const auto r = wrap(mpirun(4, {example("exit"), "3"}));
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_status, 3) << r.err;
  // Every rank finalized before exiting 3, so the record is complete.
  const json rec = record(r);
  EXPECT_EQ(rec.at("complete"), true);
}

TEST_F(Wrapped, SixtyFourRanksOversubscribed) {
  const auto r = wrap(mpirun(64, {example("compute"), "100"}), {"--quiet"});
  ASSERT_FALSE(r.timed_out);
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const json rec = record(r);
  expect_design_keys(rec, 64);
  expect_calls(rec, {{"MPI_Comm_rank", 1}, {"MPI_Comm_size", 1}, {"MPI_Bcast", 1}, {"MPI_Barrier", 1}, {"MPI_Allreduce", 1}});
  // --quiet: only the record path, no table.
  EXPECT_EQ(r.err.find("compute [s]"), std::string::npos);
}

TEST_F(Wrapped, BareExecutableIsASingletonRank) {
  const auto r = wrap({example("compute"), "1000"});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const json rec = record(r);
  EXPECT_EQ(rec.at("job").at("launcher"), "singleton");
  ASSERT_EQ(rec.at("ranks").size(), 1u);
  EXPECT_EQ(count(rec.at("ranks").at(0), "MPI_Allreduce"), 1u);
}

}  // namespace
}  // namespace hpcsens::testing
