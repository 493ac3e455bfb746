// The preload under a real mpirun: exact call counts and bytes (C, mpif.h, mpi_f08), threads,
// counters, partial records on abort/exit, exit status preserved, harmless in non-MPI programs.
// Every process is bounded by `timeout`.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "record/run_record.h"
#include "tests/common/papi_state.h"
#include "tests/preload/mpirun_fixture.h"

namespace fs = std::filesystem;
using hpcsens::record::RunRecord;

namespace {

class PreloadMpirun : public hpcsens::test::MpirunFixture {
 protected:
  PreloadMpirun() { timeout_s_ = 60; }

  // Two ranks, record r1.json (the shared fixture's mpirun takes the rank count and names m1).
  int mpirun(const std::string& prog_and_args, const std::string& extra = "",
             const std::string& out = "") {
    return sh(std::string(HPCSENS_MPIRUN) + " -np 2 --oversubscribe -x LD_PRELOAD=" +
              HPCSENS_PRELOAD_LIB + " -x HPCSENS_OUT=" + (out.empty() ? dir_ : out) +
              " -x HPCSENS_RUN_ID=r1 " + extra + " " + prog_and_args);
  }
  int warnings() const {
    const std::string l = log();
    int n = 0;
    for (auto p = l.find("hpcsens: warning"); p != std::string::npos;
         p = l.find("hpcsens: warning", p + 1))
      ++n;
    return n;
  }
  // The record, or with a rank the partial record of that rank.
  RunRecord record(int partial_rank = -1) const {
    return hpcsens::record::load_run_record(partial_rank < 0 ? run_file(dir_, "r1", ".json") : partial(partial_rank));
  }
  std::string partial(int rank) const { return run_file(dir_, "r1.rank" + std::to_string(rank), ".partial.json"); }
};

const hpcsens::record::CallStats& stats(const auto& map, const std::string& name) {
  static const hpcsens::record::CallStats none{};
  auto it = map.find(name);
  return it == map.end() ? none : it->second;
}

// Where PAPI disabled its perf_event component (tests/common/papi_state.h asks PAPI), the one
// warning and every counters status name PAPI's reason, and no rank has counter values.
bool papi_counts(const std::string& status) {
  const auto why = hpcsens::test::papi_perf_event_disabled();
  if (!why) return true;
  EXPECT_EQ(status.rfind("counters unavailable: " + hpcsens::test::papi_disabled_words(*why), 0), 0u) << status;
  return false;
}

TEST_F(PreloadMpirun, CProgramExactCallsBytesIoAndCounters) {
  const bool papi_off = hpcsens::test::papi_perf_event_disabled().has_value();
  ASSERT_EQ(mpirun(std::string(PROG_C) + " normal " + dir_,
                   "-x 'HPCSENS_COMMAND=[\"mpirun\",\"./app\"]'"),
            0)
      << log();
  EXPECT_EQ(warnings(), papi_off ? 1 : 0) << log();
  const RunRecord run = record();
  EXPECT_EQ(run.job.nranks, 2);
  EXPECT_EQ(run.job.command, (std::vector<std::string>{"mpirun", "./app"}));
  EXPECT_EQ(run.job.launcher, "openmpi");
  EXPECT_NE(run.job.mpi_library.find("Open MPI"), std::string::npos);
  if (papi_counts(run.counters_status)) {
    EXPECT_EQ(run.counters_status, "ok");
  }
  EXPECT_TRUE(run.complete);
  ASSERT_EQ(run.ranks.size(), 2u);
  for (const auto& r : run.ranks) {
    SCOPED_TRACE("rank " + std::to_string(r.rank));
    const auto& m = r.mpi_calls;
    EXPECT_EQ(stats(m, r.rank == 0 ? "MPI_Send" : "MPI_Recv").count, 3u);
    EXPECT_EQ(stats(m, r.rank == 0 ? "MPI_Send" : "MPI_Recv").bytes, 1200u);  // not 1800 posted
    EXPECT_EQ(stats(m, r.rank == 0 ? "MPI_Recv" : "MPI_Send").count, 0u);
    EXPECT_EQ(stats(m, "MPI_Allreduce").count, 5u);
    EXPECT_EQ(stats(m, "MPI_Allreduce").bytes, 400u);
    EXPECT_EQ(stats(m, "MPI_Barrier").count, 2u);  // our own two barriers are not counted
    EXPECT_EQ(stats(m, "MPI_Isend").bytes, 7u);
    EXPECT_EQ(stats(m, "MPI_Irecv").bytes, 7u);
    EXPECT_EQ(stats(m, "MPI_Waitall").count, 1u);
    EXPECT_EQ(stats(m, "MPI_Bcast").bytes, 64u);
    EXPECT_EQ(stats(m, "MPI_Allgather").bytes, 16u);  // MPI_IN_PLACE: the receive block
    EXPECT_EQ(stats(m, "MPI_Comm_rank").count, 1u);   // every MPI-3.1 call is counted (issue 11)
    const auto& io = r.io_calls;
    EXPECT_EQ(stats(io, "write").count, 2u);  // MPI-IO's own writes are inside MPI_File_*
    EXPECT_EQ(stats(io, "write").bytes, 8192u);
    EXPECT_EQ(stats(io, "read").bytes, 4096u);
    EXPECT_EQ(stats(io, "open").count, 2u);
    EXPECT_EQ(stats(io, "close").count, 2u);
    EXPECT_EQ(stats(io, "fsync").count, 1u);
    EXPECT_EQ(stats(io, "MPI_File_write_at").bytes, 1000u);
    EXPECT_EQ(stats(io, "MPI_File_read_at").bytes, 500u);  // read past the end: 1000 posted
    EXPECT_EQ(stats(io, "MPI_File_open").count, 2u);
    EXPECT_EQ(r.io_bytes_written, 9192u);
    EXPECT_EQ(r.io_bytes_read, 4596u);
    EXPECT_GT(r.io_s, 0.0);
    EXPECT_GT(r.mpi_s, 0.0);
    EXPECT_NEAR(r.compute_s, r.wall_s - r.mpi_s - r.io_s, 1e-9);
    if (papi_counts(r.counters_status)) {
      EXPECT_EQ(r.counters_status, "ok");
      ASSERT_EQ(r.counters.count("perf::TASK-CLOCK"), 1u);
      EXPECT_GT(r.counters.at("perf::TASK-CLOCK"), 0.0);
    } else {
      EXPECT_TRUE(r.counters.empty()) << "nothing counted stands in as a value";
    }
    EXPECT_LE(r.t0, r.t1);
    EXPECT_LT(r.t1, r.t2);
    EXPECT_LE(r.t2, r.t3);
  }
  EXPECT_GE(run.timing.job_s, run.ranks[0].wall_s);
  // prog_c forks a child that calls exit(): it is not a rank and leaves no partial record.
  EXPECT_EQ(partial(0), "");
  EXPECT_EQ(partial(1), "");
}

TEST_F(PreloadMpirun, FortranMpifhCallsAreCounted) {
  ASSERT_EQ(mpirun(PROG_MPIF), 0) << log();
  const RunRecord run = record();
  ASSERT_EQ(run.ranks.size(), 2u);
  EXPECT_EQ(stats(run.ranks[0].mpi_calls, "MPI_Send").count, 4u);
  EXPECT_EQ(stats(run.ranks[0].mpi_calls, "MPI_Send").bytes, 160u);
  EXPECT_EQ(stats(run.ranks[1].mpi_calls, "MPI_Recv").count, 4u);
  EXPECT_EQ(stats(run.ranks[1].mpi_calls, "MPI_Allreduce").bytes, 24u);
  EXPECT_EQ(stats(run.ranks[1].mpi_calls, "MPI_Barrier").count, 1u);
}

TEST_F(PreloadMpirun, FortranReceiveCountsWhatTheStatusSays) {
  ASSERT_EQ(mpirun(PROG_FRECV), 0) << log();
  const RunRecord run = record();
  ASSERT_EQ(run.ranks.size(), 2u);
  EXPECT_EQ(stats(run.ranks[0].mpi_calls, "MPI_Send").bytes, 80u);
  EXPECT_EQ(stats(run.ranks[1].mpi_calls, "MPI_Recv").count, 2u);
  // 40 bytes by the status + 40 by the preload's own status where the caller passed
  // MPI_STATUS_IGNORE (the posted size would be 200).
  EXPECT_EQ(stats(run.ranks[1].mpi_calls, "MPI_Recv").bytes, 80u);
}

TEST_F(PreloadMpirun, FortranF08CallsAreCounted) {
  ASSERT_EQ(mpirun(PROG_F08), 0) << log();
  const RunRecord run = record();
  ASSERT_EQ(run.ranks.size(), 2u);
  EXPECT_EQ(stats(run.ranks[0].mpi_calls, "MPI_Send").count, 4u);
  EXPECT_EQ(stats(run.ranks[0].mpi_calls, "MPI_Send").bytes, 160u);
  EXPECT_EQ(stats(run.ranks[1].mpi_calls, "MPI_Recv").bytes, 160u);
  EXPECT_EQ(stats(run.ranks[0].mpi_calls, "MPI_Allreduce").count, 3u);
}

TEST_F(PreloadMpirun, ThreadMultipleCallsFromAllThreadsAreMerged) {
  const int st = mpirun(std::string(PROG_C) + " threads");
  if (st == 77) GTEST_SKIP() << "MPI_THREAD_MULTIPLE not provided";
  ASSERT_EQ(st, 0) << log();
  for (const auto& r : record().ranks) {
    EXPECT_EQ(stats(r.mpi_calls, "MPI_Sendrecv").count, 100u);  // 4 threads x 25
    // One int each way per call: bytes are what was sent, the received ones apart (issue 20).
    EXPECT_EQ(stats(r.mpi_calls, "MPI_Sendrecv").bytes, 400u);
    EXPECT_EQ(stats(r.mpi_calls, "MPI_Sendrecv").bytes_received, 400u);
  }
}

// QA found in-place v-collectives counted as 0 bytes; they contribute this rank's count entry.
TEST_F(PreloadMpirun, InPlaceVectorCollectivesCountThisRanksBlock) {
  ASSERT_EQ(mpirun(std::string(PROG_C) + " inplace"), 0) << log();
  const auto run = record();
  ASSERT_EQ(run.ranks.size(), 2u);
  const auto& r0 = run.ranks[0].rank == 0 ? run.ranks[0] : run.ranks[1];
  const auto& r1 = run.ranks[0].rank == 0 ? run.ranks[1] : run.ranks[0];
  EXPECT_EQ(stats(r0.mpi_calls, "MPI_Allgatherv").bytes, 8u);
  EXPECT_EQ(stats(r1.mpi_calls, "MPI_Allgatherv").bytes, 16u);
  EXPECT_EQ(stats(r0.mpi_calls, "MPI_Gatherv").bytes, 8u);
  EXPECT_EQ(stats(r1.mpi_calls, "MPI_Gatherv").bytes, 16u);
  EXPECT_EQ(stats(r0.mpi_calls, "MPI_Scatterv").bytes, 24u);
  EXPECT_EQ(stats(r1.mpi_calls, "MPI_Scatterv").bytes, 32u);
}

TEST_F(PreloadMpirun, ExitWithoutFinalizeKeepsStatusAndLeavesPartialRecords) {
  const std::string cmd = std::string(PROG_C) + " exit " + dir_;
  const int without = sh(std::string(HPCSENS_MPIRUN) + " -np 2 --oversubscribe " + cmd);
  EXPECT_EQ(mpirun(cmd), without);
  EXPECT_EQ(without, 3);
  EXPECT_EQ(run_file(dir_, "r1", ".json"), "");
  for (int rank : {0, 1}) {
    const RunRecord p = record(rank);
    EXPECT_FALSE(p.complete);
    ASSERT_EQ(p.ranks.size(), 1u);
    EXPECT_EQ(p.ranks[0].rank, rank);
    EXPECT_FALSE(p.ranks[0].complete);
    EXPECT_EQ(stats(p.ranks[0].mpi_calls, "MPI_Allreduce").count, 5u);
    EXPECT_EQ(p.job.nranks, 2);
  }
}

TEST_F(PreloadMpirun, AbortKeepsStatusAndLeavesAPartialRecord) {
  const std::string cmd = std::string(PROG_C) + " abort " + dir_;
  const int without = sh(std::string(HPCSENS_MPIRUN) + " -np 2 --oversubscribe " + cmd);
  EXPECT_EQ(mpirun(cmd), without);
  EXPECT_EQ(without, 5);
  const RunRecord p = record(0);
  EXPECT_FALSE(p.complete);
  EXPECT_EQ(stats(p.ranks.at(0).mpi_calls, "MPI_Send").count, 3u);
}

TEST_F(PreloadMpirun, UnwritableOutDirWarnsOnceAndKeepsStatus) {
  // Where PAPI disabled its perf_event component, its own one warning comes beside this one.
  const bool papi_off = hpcsens::test::papi_perf_event_disabled().has_value();
  ASSERT_EQ(mpirun(std::string(PROG_C) + " normal " + dir_, "", "/proc/hpcsens-not-here"), 0)
      << log();
  EXPECT_EQ(warnings(), papi_off ? 2 : 1) << log();
  EXPECT_NE(log().find("cannot write the run record /proc/hpcsens-not-here/r1.*.json"),
            std::string::npos)
      << log();
}

TEST_F(PreloadMpirun, RefusedEventIsReportedWarnedOnceAndTheJobRuns) {
  ASSERT_EQ(mpirun(PROG_MPIF, "-x HPCSENS_EVENTS=perf::TASK-CLOCK,NO_SUCH_EVENT_XYZ"), 0) << log();
  EXPECT_EQ(warnings(), 1) << log();
  const RunRecord run = record();
  EXPECT_NE(run.counters_status.find("NO_SUCH_EVENT_XYZ"), std::string::npos);
  EXPECT_NE(run.ranks[1].counters_status, "ok");
}

TEST_F(PreloadMpirun, GeneratesARunIdWhenNoneIsGiven) {
  ASSERT_EQ(sh(std::string(HPCSENS_MPIRUN) + " -np 2 --oversubscribe -x LD_PRELOAD=" +
               HPCSENS_PRELOAD_LIB + " -x HPCSENS_OUT=" + dir_ + " " + PROG_MPIF),
            0)
      << log();
  int records = 0;
  for (const auto& e : fs::directory_iterator(dir_)) {
    const std::string name = e.path().filename();
    if (name.rfind("run-", 0) == 0 && name.ends_with(".json")) {
      ++records;
      EXPECT_EQ(hpcsens::record::load_run_record(e.path()).ranks.size(), 2u);
    }
  }
  EXPECT_EQ(records, 1);
}

TEST_F(PreloadMpirun, PreloadedLauncherAndNonMpiProgramsRunUnchanged) {
  const std::string pre = std::string("env LD_PRELOAD=") + HPCSENS_PRELOAD_LIB + " ";
  // The launcher itself (and its daemons) under the preload.
  ASSERT_EQ(sh(pre + "HPCSENS_OUT=" + dir_ + " HPCSENS_RUN_ID=r1 " + HPCSENS_MPIRUN +
               " -np 2 --oversubscribe -x LD_PRELOAD " + PROG_MPIF),
            0)
      << log();
  EXPECT_EQ(record().ranks.size(), 2u);
  EXPECT_EQ(sh(pre + "ls " + dir_), 0) << log();
  EXPECT_NE(log().find(fs::path(run_file(dir_, "r1", ".json")).filename().string()), std::string::npos);
  EXPECT_EQ(sh(pre + "sh -c 'echo hello > " + dir_ + "/f && cat " + dir_ + "/f && exit 7'"), 7);
  EXPECT_EQ(log(), "hello\n");
  EXPECT_EQ(sh(pre + "python3 -c 'import os; print(len(os.listdir(\"" + dir_ + "\")))'"), 0);
}

}  // namespace
