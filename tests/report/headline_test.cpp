// The answer rules (report/headline.h) on records and JSON whose answer is known by construction:
// an imbalanced job, an I/O-bound job, a communication-bound job, a balanced compute-bound job,
// and models, predictions and mixes with each verdict and criterion.
#include "report/headline.h"

#include <gtest/gtest.h>

#include "record/run_record.h"
#include "report/run_scan.h"

namespace hpcsens::report {
namespace {

using nlohmann::json;

// Four ranks of 12.5 s; ranks 0-2 compute 5 s and wait 7.5 s in MPI_Barrier, rank 3 computes 10 s:
// 60 % more than the mean 6.25 s; balancing saves (10 - 6.25) / 12.5 = 30 %.
record::RunRecord imbalanced() {
  record::RunRecord rec;
  rec.timing.job_s = 12.5;
  for (int i = 0; i < 4; ++i) {
    record::RankRecord r;
    r.rank = i;
    r.wall_s = 12.5;
    r.compute_s = i == 3 ? 10.0 : 5.0;
    r.mpi_s = r.wall_s - r.compute_s;
    r.mpi_calls["MPI_Barrier"] = {1, r.mpi_s * 0.9, 0};
    r.mpi_calls["MPI_Allreduce"] = {10, r.mpi_s * 0.1, 80};
    rec.ranks.push_back(r);
  }
  return rec;
}

TEST(RunAnswer, ImbalanceNamesTheRankTheWaitAndTheSaving) {
  const RunFacts f = run_facts(scan_of(imbalanced()));
  EXPECT_EQ(f.slowest_rank, 3);
  EXPECT_DOUBLE_EQ(f.compute_mean, 6.25);
  EXPECT_DOUBLE_EQ(f.others_mpi_share, 0.6);
  EXPECT_EQ(f.top_call, "MPI_Barrier");
  EXPECT_EQ(dominant(f), Dominant::kImbalance);
  const Answer a = run_answer(f);
  EXPECT_EQ(a.tone, "caution");
  EXPECT_NE(a.headline.find("Rank 3 computes 60 % more than the mean"), std::string::npos) << a.headline;
  EXPECT_NE(a.headline.find("the other ranks spend 60 % of their time waiting in MPI, most of it in MPI_Barrier"),
            std::string::npos) << a.headline;
  EXPECT_NE(a.headline.find("balancing would save up to 30 % of the run (3.75 s)"), std::string::npos) << a.headline;
  ASSERT_EQ(a.advice.size(), 2u);
  EXPECT_NE(a.advice[0].find("1.60x the mean (load-balance efficiency 0.62)"), std::string::npos) << a.advice[0];
  EXPECT_NE(a.advice[1].find("MPI_Barrier: that call holds 90 % of all MPI time"), std::string::npos) << a.advice[1];
}

// Rank 0 spends 6.2 s of a 10 s job in stdio writes (5.58 s) and POSIX (0.62 s); the others wait.
TEST(RunAnswer, IoOnOneRankComesFirst) {
  RunFacts f;
  f.ranks = 4;
  f.job_s = 10;
  f.wall_sum = 40, f.io_sum = 6.2, f.compute_sum = 4 * 3.0, f.mpi_sum = 40 - 6.2 - 12;
  f.compute_mean = 3, f.compute_max = 3.0, f.slowest_rank = 0;
  f.others_mpi_share = 0.7;
  f.top_io_class = "stdio", f.top_io_class_share = 0.9;
  f.top_io_rank = 0, f.top_io_rank_share = 1.0;
  EXPECT_EQ(dominant(f), Dominant::kIo);
  const Answer a = run_answer(f);
  // Each share names its base (issue 29): rank 0's share of the job; the class's of all I/O.
  EXPECT_EQ(a.headline, "I/O takes 62 % of the run: rank 0 spent 6.20 s of the 10.0 s job in I/O. Over all ranks, "
                        "stdio calls hold 90 % of the I/O time.");
  ASSERT_GE(a.advice.size(), 1u);
  EXPECT_NE(a.advice.back().find("rank 0 does 100 % of all I/O time (6.20 s)"), std::string::npos) << a.advice.back();
}

// Two ranks writing one file collectively (PnetCDF): rank 0 has 52 % of the I/O time, its fair
// share; no rank is said to hold the I/O and no advice to spread it. All of it on rank 0 is.
TEST(RunAnswer, IoSharedFairlyOverTwoRanksIsNotOnOneRank) {
  RunFacts f;
  f.ranks = 2, f.job_s = 1, f.wall_sum = 2, f.io_sum = 1.2, f.compute_sum = 0.6, f.mpi_sum = 0.2;
  f.compute_mean = 0.3, f.compute_max = 0.3, f.top_io_class = "mpiio", f.top_io_class_share = 1.0;
  f.top_io_rank = 0, f.top_io_rank_share = 0.52;
  ASSERT_EQ(dominant(f), Dominant::kIo);
  Answer a = run_answer(f);
  for (const auto& line : a.advice) EXPECT_EQ(line.find("Spread the I/O"), std::string::npos) << line;
  f.top_io_rank_share = 1.0;
  a = run_answer(f);
  ASSERT_FALSE(a.advice.empty());
  EXPECT_NE(a.advice.back().find("Spread the I/O"), std::string::npos) << a.advice.back();
}

// An aborted job (the QE run with a missing pseudopotential: 15 ms, both ranks from partial
// files): why it stopped comes first, not "bound by computation".
TEST(RunAnswer, AJobThatDidNotFinishSaysSoFirst) {
  RunFacts f;
  f.ranks = 2, f.job_s = 0.015, f.wall_sum = 0.03, f.compute_sum = 0.025, f.mpi_sum = 0.005;
  f.compute_mean = 0.0125, f.compute_max = 0.0126, f.slowest_rank = 0;
  const Answer finished = run_answer(f);
  f.unfinished = 2, f.job_ranks = 2;
  const Answer a = run_answer(f);
  EXPECT_EQ(a.tone, "bad");
  EXPECT_TRUE(a.headline.starts_with("The job did not finish: 2 of 2 ranks never reached MPI_Finalize")) << a.headline;
  // Not "compute takes 100 % ... balanced": a call still running at the end counts as compute.
  EXPECT_FALSE(finished.headline.empty());
  EXPECT_EQ(a.headline.find(finished.headline), std::string::npos) << a.headline;
  EXPECT_EQ(a.headline.find("balanced"), std::string::npos) << a.headline;
  EXPECT_NE(a.headline.find("not judged"), std::string::npos) << a.headline;
  ASSERT_FALSE(a.advice.empty());
  EXPECT_NE(a.advice[0].find("why it stopped"), std::string::npos);
}

// A sweep point under the network-delay knob: its MPI time is the emulated network's, and the
// answer says so before reading it (found looking at such a page: it advised fewer messages).
TEST(RunAnswer, ARunUnderTheNetworkKnobSaysSoFirst) {
  record::RunRecord rec = imbalanced();
  const Answer plain = run_answer(run_facts(scan_of(rec)));
  rec.extra["preload"]["net_delay"] = {{"applied", true}, {"added_latency_us", 5.0}, {"added_ns_per_byte", 0.0}};
  const Answer a = run_answer(run_facts(scan_of(rec)));
  EXPECT_TRUE(a.headline.starts_with("The network-delay knob added +5 us per message to this run: every MPI time "
                                     "below includes it."))
      << a.headline;
  EXPECT_NE(a.headline.find("Reading under that emulated network: " + plain.headline), std::string::npos);
  EXPECT_EQ(a.tone, "caution");
  ASSERT_EQ(a.advice.size(), plain.advice.size() + 1);
  EXPECT_NE(a.advice[0].find("the sweep's base point"), std::string::npos);
  // An unusable setting ran without delay: nothing to say.
  rec.extra["preload"]["net_delay"] = {{"applied", false}, {"error", "bad"}};
  EXPECT_EQ(run_answer(run_facts(scan_of(rec))).headline, plain.headline);
}

TEST(RunAnswer, BalancedCommunicationAndBalancedCompute) {
  RunFacts f;
  f.ranks = 8, f.job_s = 10, f.wall_sum = 80, f.compute_sum = 40, f.mpi_sum = 40, f.compute_mean = 5,
  f.compute_max = 5.1, f.slowest_rank = 2, f.others_mpi_share = 0.5, f.top_call = "MPI_Alltoall", f.top_call_share = 0.8;
  EXPECT_EQ(dominant(f), Dominant::kMpi);  // max/mean 1.02: waiting is not imbalance
  EXPECT_EQ(run_answer(f).headline,
            "MPI takes 50 % of the ranks' time, 80 % of all MPI time in MPI_Alltoall; compute is balanced (max/mean "
            "1.02).");
  f.compute_sum = 76, f.mpi_sum = 4, f.compute_mean = 9.5, f.compute_max = 9.6, f.others_mpi_share = 0.05;
  EXPECT_EQ(dominant(f), Dominant::kCompute);
  const Answer a = run_answer(f);
  EXPECT_EQ(a.tone, "ok");
  EXPECT_NE(a.headline.find("Compute takes 95 % of the ranks' time and is balanced (max/mean 1.01)"), std::string::npos)
      << a.headline;
  EXPECT_EQ(dominant(RunFacts{}), Dominant::kNothing);
  EXPECT_EQ(run_answer(RunFacts{}).tone, "bad");
}

TEST(RunAnswer, TextFormListsTheAdviceUnderTheAnswer) {
  const std::string t = answer_text(run_answer(run_facts(scan_of(imbalanced()))));
  EXPECT_EQ(t.rfind("Answer: Rank 3 computes 60 %", 0), 0u) << t;
  EXPECT_NE(t.find("\n  - Balance the work"), std::string::npos) << t;
}

// A balanced compute-bound run of the default event set on a machine without a usable PMU (this
// AMD VM: PAPI's perf_event component disabled). The answer must not send the user to
// --events topdown, which needs the very counters that just failed; with working counters it does.
TEST(RunAnswer, NoTopDownAdviceRightAfterTheCountersFailed) {
  record::RunRecord rec;
  rec.timing.job_s = 10;
  for (int i = 0; i < 2; ++i) {
    record::RankRecord r;
    r.rank = i, r.wall_s = 10, r.compute_s = 9.8, r.mpi_s = 0.2, r.event_set = "default";
    r.mpi_calls["MPI_Allreduce"] = {10, 0.2, 80};
    rec.ranks.push_back(r);
  }
  auto advises_topdown = [](const record::RunRecord& x) {
    for (const auto& item : run_answer(run_facts(scan_of(x))).advice)
      if (item.find("--events topdown") != std::string::npos) return true;
    return false;
  };
  rec.counters_status = "ok";
  for (auto& r : rec.ranks) r.counters_status = "ok";
  EXPECT_TRUE(advises_topdown(rec));
  rec.counters_status =
      "counters unavailable: PAPI's perf_event component is disabled (Error libpfm4 no default PMU found)";
  for (auto& r : rec.ranks) r.counters_status = rec.counters_status;
  EXPECT_EQ(run_facts(scan_of(rec)).topdown, rec.counters_status);
  EXPECT_FALSE(advises_topdown(rec));
}

// The prediction and mix answers are built by `hpcsens predict` (tests/model/predict_answer_test.cpp).

}  // namespace
}  // namespace hpcsens::report
