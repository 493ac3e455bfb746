// The bottleneck section: grouping of alike ranks, job verdict, formats, and the one line that
// says why when there is nothing to show.
#include <gtest/gtest.h>

#include "topdown/bottleneck.h"

using namespace hpcsens;
using namespace hpcsens::topdown;

namespace {

// Skylake-SP counts (SMT off) for a rank with the given slot split; slots = 4 x 1e9.
// fe/bs/ret in slots; backend split by memory share via the level-2 cycle events.
record::RankRecord skx_rank(int rank, double fe, double ret, double mem_share, double compute_s) {
  record::RankRecord r;
  r.rank = rank;
  r.event_set = "topdown-skx";
  r.compute_s = compute_s;
  r.counters = {
      {"INST_RETIRED:ANY_P", 1.0e9},
      {"CPU_CLK_UNHALTED:THREAD_P", 1.0e9},
      {"IDQ_UOPS_NOT_DELIVERED:CORE", fe * 4e9},
      {"UOPS_ISSUED:ANY", ret * 4e9},  // no bad speculation
      {"UOPS_RETIRED:RETIRE_SLOTS", ret * 4e9},
      {"INT_MISC:RECOVERY_CYCLES", 0},
      {"IDQ_UOPS_NOT_DELIVERED:CYCLES_0_UOPS_DELIV_CORE", fe * 1e9},  // all latency
      {"BR_MISP_RETIRED:ALL_BRANCHES", 0},
      {"MACHINE_CLEARS:COUNT", 0},
      {"CYCLE_ACTIVITY:STALLS_MEM_ANY", mem_share * 1e9},
      {"EXE_ACTIVITY:BOUND_ON_STORES", 0},
      {"CYCLE_ACTIVITY:STALLS_TOTAL", 1e9},
      {"EXE_ACTIVITY:1_PORTS_UTIL", 0},
      {"EXE_ACTIVITY:2_PORTS_UTIL", 0},
      {"perf::TASK-CLOCK", 5e8},
  };
  return r;
}

record::RunRecord job() {
  record::RunRecord rec;
  rec.job.nranks = 5;
  // Ranks 0, 1, 3: Backend about 60 % (memory share 0.8 -> Memory 48 %); rank 2: Frontend 30 %;
  // rank 4: impossible counts (frontend 150 % of slots) -> mismeasured.
  rec.ranks.push_back(skx_rank(0, 0.05, 0.35, 0.8, 10.0));
  rec.ranks.push_back(skx_rank(1, 0.06, 0.34, 0.8, 10.2));
  rec.ranks.push_back(skx_rank(2, 0.30, 0.60, 0.1, 8.0));
  rec.ranks.push_back(skx_rank(3, 0.05, 0.36, 0.8, 10.1));
  rec.ranks.push_back(skx_rank(4, 1.50, 0.30, 0.5, 9.0));
  return rec;
}

}  // namespace

TEST(RankRanges, CompressesRuns) {
  EXPECT_EQ(rank_ranges({0, 1, 2, 3, 5, 7, 8}), "0-3,5,7-8");
  EXPECT_EQ(rank_ranges({4}), "4");
  EXPECT_EQ(rank_ranges({}), "");
}

TEST(GroupAlike, SamePathWithinToleranceOnly) {
  const auto rec = job();
  std::vector<TopdownMetrics> ms;
  for (const auto& r : rec.ranks) ms.push_back(compute_metrics(r.event_set, r.counters));
  const auto groups = group_alike(ms, 0.05);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0], (std::vector<std::size_t>{0, 1, 3}));
  EXPECT_EQ(groups[1], (std::vector<std::size_t>{2}));
  EXPECT_EQ(groups[2], (std::vector<std::size_t>{4}));
  // With a tight tolerance ranks 1 and 3 (1 point off in Frontend or Retiring) split off.
  EXPECT_EQ(group_alike(ms, 0.005).size(), 5u);
}

TEST(BottleneckSection, TextTableAndVerdict) {
  const std::string s = bottleneck_section(job(), TableFormat::kText, false);
  EXPECT_NE(s.find("Top-Down (topdown-skx, fraction of slots)"), std::string::npos) << s;
  EXPECT_NE(s.find("0-1,3"), std::string::npos) << s;
  // Ranks 0,1,3: Backend = 1 - FE - RET (0.60, 0.60, 0.59), memory = 0.8 x Backend = 48 %.
  EXPECT_NE(s.find("Backend > Memory"), std::string::npos) << s;
  EXPECT_NE(s.find("Frontend > Fetch Latency (30.0%)"), std::string::npos) << s;
  EXPECT_NE(s.find("mismeasured"), std::string::npos) << s;
  EXPECT_NE(s.find("Frontend Bound = 1.500"), std::string::npos) << s;
  EXPECT_NE(s.find("Job bottleneck: Backend > Memory (3 of 5 ranks); 1 rank(s) mismeasured"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("2.00"), std::string::npos) << s;  // GHz = 1e9 cycles / 5e8 ns
}

TEST(BottleneckSection, AllRanksListsEveryRank) {
  const std::string s = bottleneck_section(job(), TableFormat::kCsv, true);
  // "# title", header, 5 rows, verdict comment line
  int lines = 0;
  for (char c : s) lines += c == '\n';
  EXPECT_EQ(lines, 8) << s;
  EXPECT_NE(s.find("rank,Retiring,Bad Spec,Frontend,Backend,flagged path,IPC,GHz,notes"), std::string::npos) << s;
  EXPECT_NE(s.find("\n2,0.6000,0.0000,0.3000,0.1000,"), std::string::npos) << s;
}

TEST(BottleneckSection, MarkdownAndMultiplexedFlag) {
  auto rec = job();
  for (auto& r : rec.ranks) {
    r.multiplexed = true;
    r.counter_running_fraction = {{"CYCLE_ACTIVITY:STALLS_MEM_ANY", 0.5}, {"UOPS_ISSUED:ANY", 0.5}};
  }
  const std::string s = bottleneck_section(rec, TableFormat::kMarkdown, false);
  EXPECT_EQ(s.rfind("### Top-Down (topdown-skx, fraction of slots, MULTIPLEXED)", 0), 0u) << s;
  EXPECT_NE(s.find("| multiplexed"), std::string::npos) << s;
  EXPECT_NE(s.find("values multiplexed (min running fraction 50%)"), std::string::npos) << s;
  // Skylake's Backend is a remainder: time-sliced counts give no breakdown, only the reason.
  EXPECT_NE(s.find("Backend Bound is what multiplexed (time-sliced) counts leave: not reliable"), std::string::npos)
      << s;
  EXPECT_EQ(s.find("Backend > Memory"), std::string::npos) << s;
}

TEST(BottleneckSection, OneLineWhyWhenNothingToShow) {
  record::RunRecord rec;
  rec.counters_status =
      "Top-Down unavailable: TOPDOWN:SLOTS not supported (no hardware PMU / virtual machine without "
      "PMU passthrough)";
  EXPECT_EQ(bottleneck_section(rec, TableFormat::kText, false), rec.counters_status + "\n");
  // The preload's raw PAPI refusal gets the likely cause added.
  rec.counters_status = "rank 0: PAPI refused INST_RETIRED:ANY_P: Event does not exist";
  EXPECT_EQ(bottleneck_section(rec, TableFormat::kText, false),
            "Top-Down unavailable: rank 0: PAPI refused INST_RETIRED:ANY_P: Event does not exist (no "
            "hardware PMU here? e.g. a virtual machine without PMU passthrough; see hpcsens doctor)\n");
  rec.counters_status = "permission denied";
  EXPECT_EQ(bottleneck_section(rec, TableFormat::kCsv, false), "# Top-Down unavailable: permission denied\n");

  record::RunRecord plain;
  record::RankRecord r;
  r.event_set = "default";
  r.counters = {{"perf::TASK-CLOCK", 1e9}};
  plain.ranks.push_back(r);
  EXPECT_EQ(bottleneck_section(plain, TableFormat::kText, false),
            "Top-Down: not measured (event set 'default'; run with --events topdown)\n");
  // A default run whose counters failed (a 16-core Xeon VM where PAPI had no perf_event) never
  // asked for Top-Down: the line says so before the counters' reason, not "Top-Down unavailable".
  plain.counters_status = plain.ranks[0].counters_status =
      "counters unavailable: PAPI's perf_event component is disabled (Error libpfm4 no default PMU found)";
  plain.ranks[0].counters.clear();
  EXPECT_EQ(bottleneck_section(plain, TableFormat::kText, false),
            "Top-Down: not measured (event set 'default'; --events topdown needs the counters that failed here); "
            "counters unavailable: "
            "PAPI's perf_event component is disabled (Error libpfm4 no default PMU found)\n");
}

TEST(BottleneckSection, LongRankListsAreShortenedInTextButNotCsv) {
  record::RunRecord rec;
  // Even ranks memory-bound, odd ranks frontend-bound: two groups of 50 scattered ranks.
  for (int i = 0; i < 100; ++i)
    rec.ranks.push_back(i % 2 ? skx_rank(i, 0.30, 0.60, 0.1, 8.0) : skx_rank(i, 0.05, 0.35, 0.8, 10.0));
  const std::string text = bottleneck_section(rec, TableFormat::kText, false);
  EXPECT_NE(text.find("  0,2,4,6,8,10,12,14,16,18,20,22,24,26,28,...  50"), std::string::npos) << text;
  const std::string csv = bottleneck_section(rec, TableFormat::kCsv, false);
  EXPECT_NE(csv.find(",96,98\",50,"), std::string::npos) << csv;  // full list, quoted
}

// QA defect: one rank that could not count (PAPI refused its events) hid Top-Down for every rank.
TEST(BottleneckSection, OneRefusedRankDoesNotHideTheOthers) {
  record::RunRecord rec;
  for (int i = 0; i < 3; ++i) rec.ranks.push_back(skx_rank(i, 0.05, 0.35, 0.8, 10.0));
  record::RankRecord bad;
  bad.rank = 3;
  bad.event_set = "topdown-skx";
  bad.counters = {{"perf::TASK-CLOCK", 1e8}};
  bad.counters_status = "rank 3: PAPI refused INST_RETIRED:ANY_P: Event does not exist";
  rec.ranks.push_back(bad);
  rec.counters_status = bad.counters_status;  // the record-level status repeats the first refusal
  const std::string s = bottleneck_section(rec, TableFormat::kText, false);
  EXPECT_EQ(s.find("Top-Down unavailable"), std::string::npos) << s;
  EXPECT_NE(s.find("Top-Down (topdown-skx, fraction of slots)"), std::string::npos) << s;
  EXPECT_NE(s.find("  0-2 "), std::string::npos) << s;
  EXPECT_NE(s.find("unavailable"), std::string::npos) << s;
  EXPECT_NE(s.find("rank 3: PAPI refused INST_RETIRED:ANY_P"), std::string::npos) << s;
  EXPECT_NE(s.find("Job bottleneck: Backend > Memory (3 of 4 ranks); 1 rank(s) mismeasured or unavailable"),
            std::string::npos)
      << s;
  // No rank usable: still the one line with the likely cause.
  rec.ranks.resize(0);
  rec.ranks.push_back(bad);
  EXPECT_EQ(bottleneck_section(rec, TableFormat::kText, false).rfind("Top-Down unavailable: rank 3: PAPI", 0), 0u);
}

// QA defect: a grouped "mismeasured" row showed only its first rank's out-of-range values.
TEST(GroupAlike, MismeasuredRanksWithDifferentValuesAreNotGrouped) {
  record::RunRecord rec;
  rec.ranks.push_back(skx_rank(0, 0.05, 0.35, 0.8, 10.0));
  rec.ranks.push_back(skx_rank(1, 1.50, 0.30, 0.5, 9.0));  // Frontend Bound = 1.500
  rec.ranks.push_back(skx_rank(2, 1.80, 0.30, 0.5, 9.0));  // Frontend Bound = 1.800
  rec.ranks.push_back(skx_rank(3, 1.50, 0.30, 0.5, 9.0));  // same values as rank 1
  std::vector<TopdownMetrics> ms;
  for (const auto& r : rec.ranks) ms.push_back(compute_metrics(r.event_set, r.counters));
  ASSERT_FALSE(ms[1].mismeasured.empty());
  ASSERT_NE(ms[1].mismeasured, ms[2].mismeasured);
  const auto groups = group_alike(ms, 0.05);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[1], (std::vector<std::size_t>{1, 3}));
  EXPECT_EQ(groups[2], (std::vector<std::size_t>{2}));
  const std::string s = bottleneck_section(rec, TableFormat::kText, false);
  EXPECT_NE(s.find("Frontend Bound = 1.500"), std::string::npos) << s;
  EXPECT_NE(s.find("Frontend Bound = 1.800"), std::string::npos) << s;
}

// QA defect: with no majority the job line named an arbitrary rank's path as the job's bottleneck.
TEST(BottleneckSection, NoMajorityMeansNoCommonBottleneck) {
  record::RunRecord rec;
  rec.ranks.push_back(skx_rank(0, 0.05, 0.35, 0.8, 10.0));  // Backend > Memory
  rec.ranks.push_back(skx_rank(1, 0.05, 0.35, 0.8, 10.0));  // Backend > Memory
  rec.ranks.push_back(skx_rank(2, 0.30, 0.60, 0.1, 8.0));   // Frontend > Fetch Latency
  rec.ranks.push_back(skx_rank(3, 0.05, 0.80, 0.1, 8.0));   // none flagged
  std::string s = bottleneck_section(rec, TableFormat::kText, false);
  EXPECT_NE(s.find("Job bottleneck: no common bottleneck: 3 different paths (most common: Backend > "
                   "Memory, 2 of 4 ranks)"),
            std::string::npos)
      << s;
  // More than half of the ranks: the job's bottleneck.
  rec.ranks[3] = skx_rank(3, 0.05, 0.35, 0.8, 10.0);
  s = bottleneck_section(rec, TableFormat::kText, false);
  EXPECT_NE(s.find("Job bottleneck: Backend > Memory (3 of 4 ranks)"), std::string::npos) << s;
}

// Issue 29: where level 2 was not counted, the path says so on itself (with why) instead of
// stopping at "Backend (45.0%)", which reads as "no child over its threshold". Counter values
// are recorded doubles for a named event set: no CPU identity of this host is read.
TEST(BottleneckLevel2, PathSaysLevel2NotCountedAndWhy) {
  record::RunRecord rec;
  rec.job.nranks = 2;
  for (int i = 0; i < 2; ++i) {
    record::RankRecord r;
    r.rank = i;
    r.compute_s = 1;
    r.event_set = "topdown-zen4";  // level 1 only: the level-2 group did not fit beside it
    r.counters = {{"CYCLES_NOT_IN_HALT", 1e9}, {"DISPATCH_STALLS_1:FE_NO_OPS", 6e8},
                  {"DISPATCH_STALLS_1:BE_STALLS", 2.7e9}, {"DISPATCH_STALLS_1:SMT_CONTENTION", 6e7},
                  {"OPS_SOURCE_DISPATCHED_FROM_DECODER:DECODER:OPCACHE:LOOP_BUFFER", 2.64e9},
                  {"RETIRED_OPS", 2.34e9}};
    rec.ranks.push_back(r);
  }
  const TopdownMetrics m = compute_metrics(rec.ranks[0].event_set, rec.ranks[0].counters);
  ASSERT_EQ(path_text(flagged_path(m)), "Backend");
  const std::string why = "its events did not fit on the counters beside level 1: on Zen 4/5 level 1 takes all six";
  EXPECT_EQ(level2_not_counted(m, flagged_path(m)), why);
  const BottleneckData d = bottleneck_data(rec, false, false);
  ASSERT_EQ(d.rows.size(), 1u);
  bool on_path = false;
  for (const auto& cell : d.rows[0]) on_path = on_path || cell == "Backend (45.0%) > level 2 not counted (" + why + ")";
  EXPECT_TRUE(on_path) << d.rows[0].front();
  EXPECT_NE(d.line.find("Job bottleneck: Backend > level 2 not counted (" + why + ") (2 of 2 ranks)"), std::string::npos)
      << d.line;
  // Skylake without the five memory/core cycle events: the reason names them.
  record::RankRecord s = skx_rank(0, 0.05, 0.35, 0.8, 1);
  for (const char* e : {"CYCLE_ACTIVITY:STALLS_MEM_ANY", "EXE_ACTIVITY:BOUND_ON_STORES", "CYCLE_ACTIVITY:STALLS_TOTAL",
                        "EXE_ACTIVITY:1_PORTS_UTIL", "EXE_ACTIVITY:2_PORTS_UTIL"})
    s.counters.erase(e);
  const TopdownMetrics k = compute_metrics(s.event_set, s.counters);
  ASSERT_EQ(path_text(flagged_path(k)), "Backend");
  EXPECT_EQ(path_text_with_gaps(k, flagged_path(k)),
            "Backend > level 2 not counted (its events did not fit on the counters beside level 1: Memory/Core Bound "
            "need five cycle events more)");
  // Counted: the path goes on, with no note.
  const TopdownMetrics full = compute_metrics("topdown-skx", skx_rank(0, 0.05, 0.35, 0.8, 1).counters);
  EXPECT_EQ(path_text_with_gaps(full, flagged_path(full)), "Backend > Memory");
  EXPECT_EQ(level2_not_counted(full, {"Backend Bound"}), "");
}
