// `hpcsens run` refusing bad options before the job starts, explaining jobs that left no record,
// and the preload staying inert (instead of crashing the job) when injected into the other MPI.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "run_fixture.h"

namespace hpcsens::testing {
namespace {
namespace fs = std::filesystem;

const std::string kHpcsens = HPCSENS_BIN;
const std::string kOmpiProg = GUARD_PROG_OMPI;  // guard_prog.c built with Open MPI's mpicc

class RunGuards : public HpcsensRunTest {
 protected:
  // The job would create this file: it must not exist after a refused command line.
  std::vector<std::string> marker_job() const { return {"/bin/touch", (out_ / "job-ran").string()}; }
  bool job_ran() const { return fs::exists(out_ / "job-ran"); }
  static int lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }
};

TEST_F(RunGuards, MalformedEventsAreRefusedBeforeTheJobStarts) {
  fs::create_directories(out_);
  for (const std::string spec : {",", "a b", "", "PAPI_TOT_CYC,,PAPI_TOT_INS", " "}) {
    const auto r = wrap(marker_job(), {"--events", spec});
    EXPECT_EQ(r.exit_status, 2) << "'" << spec << "': " << r.err;
    EXPECT_NE(r.err.find("--events"), std::string::npos) << r.err;
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_FALSE(job_ran()) << "'" << spec << "'";
  }
  // Blanks around names are fine (the job is not MPI, so it leaves no record: the job's status is
  // asked for, else hpcsens would exit 74 for the missing record).
  const auto ok = wrap(marker_job(), {"--events", " none ", "--keep-job-status"});
  EXPECT_EQ(ok.exit_status, 0) << ok.err;
}

TEST_F(RunGuards, UnknownOptionIsNamed) {
  fs::create_directories(out_);
  const auto r = wrap(marker_job(), {"--bogus"});
  EXPECT_EQ(r.exit_status, 2);
  EXPECT_NE(r.err.find("unknown option --bogus"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("put -- before"), std::string::npos) << r.err;
  EXPECT_FALSE(job_ran());
}

TEST_F(RunGuards, NonFiniteOrNegativeTimeoutIsRefused) {
  fs::create_directories(out_);
  for (const std::string t : {"nan", "inf", "-1"}) {
    const auto r = wrap(marker_job(), {"--timeout", t});
    EXPECT_EQ(r.exit_status, 2) << t << ": " << r.err;
    EXPECT_NE(r.err.find("--timeout"), std::string::npos) << r.err;
    EXPECT_FALSE(job_ran()) << t;
  }
}

TEST_F(RunGuards, TimedOutJobSaysSoEvenWhenQuiet) {
  const auto r = wrap({"mpirun", "-np", "2", "--oversubscribe", kOmpiProg, "sleep"},
                      {"--timeout", "2", "--quiet"});
  ASSERT_FALSE(r.timed_out);
  EXPECT_NE(r.err.find("hpcsens: warning: the job exceeded its time limit"), std::string::npos) << r.err;
  // The ranks stopped by the timeout's SIGTERM leave their partials from the signal handler
  // (issue 20), so the job now has an incomplete record instead of none, and says so.
  // A rank the launcher SIGKILLs before it is scheduled (loaded 2-core machine) is counted as lost;
  // if every rank was, the job has no record and says that instead.
  const bool incomplete = r.err.find("rank(s) did not reach MPI_Finalize") != std::string::npos &&
                          r.err.find("(INCOMPLETE)") != std::string::npos;
  const bool none = r.err.find("before any rank reached MPI_Finalize: no record") != std::string::npos;
  EXPECT_TRUE(incomplete || none) << r.err;
  EXPECT_EQ(r.err.find("was this an MPI program"), std::string::npos) << r.err;
}

TEST_F(RunGuards, CrashedRankIsReportedAsACrash) {
  const auto r = wrap({"mpirun", "-np", "2", "--oversubscribe", kOmpiProg, "segv"});
  ASSERT_FALSE(r.timed_out);
  EXPECT_NE(r.exit_status, 0);
  EXPECT_EQ(r.err.find("was this an MPI program"), std::string::npos) << r.err;
  EXPECT_TRUE(r.err.find("before any rank reached MPI_Finalize: no record") != std::string::npos ||
              r.err.find("hpcsens: record:") != std::string::npos) << r.err;
}

TEST_F(RunGuards, RefusedEventLeavesTheJobStderrClean) {
  const auto r = wrap({"mpirun", "-np", "2", "--oversubscribe", kOmpiProg}, {"--events", "NOPE_EVENT"});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_EQ(r.err.find("drm"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("rsmi_init"), std::string::npos) << r.err;
}

TEST_F(RunGuards, UnwritableOutIsOneDocumentedWarning) {
  const auto r = wrap({"/bin/true"}, {"--out", "/dev/null/hpcsens"});
  // No record is not success (issue 22): 74, and one more line saying so with the job's status.
  EXPECT_EQ(r.exit_status, 74);
  EXPECT_NE(r.err.find("hpcsens: warning: cannot write to output directory '/dev/null/hpcsens'"),
            std::string::npos) << r.err;
  EXPECT_NE(r.err.find("hpcsens: no run record was written; the job exited with status 0"), std::string::npos) << r.err;
  EXPECT_EQ(lines(r.err), 2) << r.err;
}

#ifdef GUARD_PROG_MPICH
// The MPICH preload in an Open MPI process (and the reverse) must not touch MPI handles.
TEST_F(RunGuards, MismatchedPreloadRunsTheJobUnmeasured) {
  const std::string lib = fs::path(kHpcsens).parent_path().parent_path() / "lib";
  struct Case { std::string preload, prog, uses, injected; };
  for (const Case& c : {Case{lib + "/libhpcsens_preload_mpich.so", kOmpiProg, "Open MPI", "MPICH"},
                        Case{lib + "/libhpcsens_preload.so", GUARD_PROG_MPICH, "MPICH", "Open MPI"}}) {
    const auto r = run_process({"/usr/bin/env", "LD_PRELOAD=" + c.preload,
                                "HPCSENS_OUT=" + out_.string(), c.prog}, kTimeout);
    EXPECT_EQ(r.exit_status, 0) << c.preload << ": " << r.err;
    EXPECT_EQ(r.out, "guard: ok 0\n") << r.err;
    EXPECT_NE(r.err.find("hpcsens: warning: this program uses " + c.uses + " but the " + c.injected +
                         " preload was injected; running unmeasured"),
              std::string::npos) << r.err;
  }
}

// Hydra starting an Open MPI program: hpcsens picks the Open MPI preload from the program's ELF.
TEST_F(RunGuards, HydraRunsAnOpenMpiProgramWithTheOpenMpiPreload) {
  const auto r = wrap({MPICH_HYDRA, "-n", "1", kOmpiProg});
  ASSERT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_status, 0) << r.err;
  EXPECT_EQ(r.err.find("preload was injected"), std::string::npos) << r.err;
}
#endif

}  // namespace
}  // namespace hpcsens::testing
