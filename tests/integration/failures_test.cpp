// Failure paths of `hpcsens run`, each bounded by a timeout: the job's status is kept, the
// message is clear, nothing hangs.
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

const std::string kHpcsens = HPCSENS_BIN;
const std::string kExamples = HPCSENS_EXAMPLES_DIR;

std::vector<std::string> mpirun4(const std::string& example, std::vector<std::string> args = {}) {
  std::vector<std::string> v = {"mpirun", "-np", "4", "--oversubscribe", kExamples + "/example_" + example};
  v.insert(v.end(), args.begin(), args.end());
  return v;
}

class Failure : public HpcsensRunTest {};

TEST_F(Failure, UnwritableOutDirRunsTheJobAndSaysWhy) {
  const auto r = wrap(mpirun4("exit", {"3"}), {"--out", "/dev/null/hpcsens"});
  ASSERT_FALSE(r.timed_out);
  // No record written is not success: 74, with the job's own status said (issue 22).
  EXPECT_EQ(r.exit_status, 74);
  EXPECT_NE(r.err.find("the job exited with status 3"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "exit: status=3\n") << "the job ran";
  EXPECT_NE(r.err.find("cannot write to output directory '/dev/null/hpcsens'"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("hpcsens: record:"), std::string::npos);
}

TEST_F(Failure, UnknownEventIsNamedInCountersStatus) {
  const auto r = wrap(mpirun4("compute", {"1000"}), {"--events", "NOPE_EVENT"});
  ASSERT_FALSE(r.timed_out);
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_NE(r.out.find("compute: ranks=4"), std::string::npos) << "the job ran on";
  const json rec = record(r);
  EXPECT_NE(rec.at("counters_status").get<std::string>().find("NOPE_EVENT"), std::string::npos);
  EXPECT_NE(r.err.find("NOPE_EVENT"), std::string::npos) << "the user is told on stderr";
  EXPECT_EQ(rec.at("ranks").size(), 4u) << "timing is still measured";
}

TEST_F(Failure, MpiAbortKeepsStatusAndLeavesIncompleteRecord) {
  const auto direct = run_process(mpirun4("abort"), kTimeout);
  const auto r = wrap(mpirun4("abort"));
  ASSERT_FALSE(r.timed_out) << "MPI_Abort under hpcsens must not hang";
  ASSERT_FALSE(direct.timed_out);
  EXPECT_EQ(direct.exit_status, 5);
  EXPECT_EQ(r.exit_status, direct.exit_status);
  const json rec = record(r);
  EXPECT_EQ(rec.at("complete"), false);
  EXPECT_NE(r.err.find("INCOMPLETE"), std::string::npos);
  EXPECT_NE(r.err.find("did not reach MPI_Finalize"), std::string::npos);
  // The aborting rank left its partial record.
  bool found = false;
  for (const auto& rank : rec.at("ranks")) found = found || rank.at("rank") == 3;
  EXPECT_TRUE(found);
}

TEST_F(Failure, ExitWithoutFinalizeKeepsStatusAndLeavesIncompleteRecord) {
  const auto direct = run_process(mpirun4("no_finalize"), kTimeout);
  const auto r = wrap(mpirun4("no_finalize"));
  ASSERT_FALSE(r.timed_out);
  ASSERT_FALSE(direct.timed_out);
  EXPECT_NE(direct.exit_status, 0);
  EXPECT_EQ(r.exit_status, direct.exit_status);
  // (No stdout comparison here: when a rank exits without finalize, Open MPI tears the job
  // down and may drop rank 0's last line, with or without hpcsens.)
  const json rec = record(r);
  EXPECT_EQ(rec.at("complete"), false);
  EXPECT_EQ(rec.at("job").at("nranks"), 4);
  // The first rank to exit wrote its partial record before exiting; Open MPI then kills the
  // others, sometimes while they are still writing theirs (their temporaries are discarded).
  EXPECT_GE(rec.at("ranks").size(), 1u);
  EXPECT_LE(rec.at("ranks").size(), 4u);
  for (const auto& rank : rec.at("ranks")) {
    EXPECT_EQ(rank.at("complete"), false);
    EXPECT_EQ(rank.at("mpi_calls").at("MPI_Allreduce").at("count"), 1);
  }
  // No partial files are left behind once they are folded into the record.
  for (const auto& e : fs::directory_iterator(out_))
    EXPECT_EQ(e.path().string().find(".partial.json"), std::string::npos) << e.path();
}

TEST_F(Failure, NonMpiCommandRunsAndIsExplained) {
  const auto r = wrap({"/bin/echo", "hi"});
  ASSERT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_status, 74) << "a clean exit without a record is not success (issue 22)";
  EXPECT_EQ(wrap({"/bin/echo", "hi"}, {"--keep-job-status"}).exit_status, 0);
  EXPECT_EQ(r.out, "hi\n");
  EXPECT_NE(r.err.find("no MPI ranks reported (was this an MPI program?)"), std::string::npos) << r.err;
  const auto r3 = wrap({"/bin/sh", "-c", "echo out; exit 3"});
  EXPECT_EQ(r3.exit_status, 3);
  EXPECT_EQ(r3.out, "out\n");
}

TEST_F(Failure, MissingProgramIs127WithMessage) {
  const auto r = wrap({"/nonexistent/app"});
  EXPECT_EQ(r.exit_status, 127);
  EXPECT_NE(r.err.find("/nonexistent/app"), std::string::npos);
}

TEST_F(Failure, TimeoutStopsAHangingJob) {
  const auto r = wrap({"/bin/sleep", "30"}, {"--timeout", "0.5"});
  ASSERT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_status, 128 + 15);
  EXPECT_NE(r.err.find("time limit"), std::string::npos);
  EXPECT_LT(r.seconds, 15);
}

TEST_F(Failure, UsageErrorsExit2) {
  auto r = run_process({kHpcsens, "run", "--out", out_.string()}, kTimeout);
  EXPECT_EQ(r.exit_status, 2);
  EXPECT_NE(r.err.find("no command given"), std::string::npos);
  // Job options without `--` would be reordered by the option parser: refused, not guessed.
  r = run_process({kHpcsens, "run", "mpirun", "-np", "2", "./app"}, kTimeout);
  EXPECT_EQ(r.exit_status, 2);
  EXPECT_NE(r.err.find("put -- before"), std::string::npos);
}

}  // namespace
}  // namespace hpcsens::testing
