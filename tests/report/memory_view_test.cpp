// Memory per rank and per node in the report (report/memory_totals.h, report/memory_view.h):
// each rank's peak read by the fast scan and the careful reader alike, per host sums, the
// summary's rows, the CSV metrics, derived.memory; and the timeline's memory row.
#include <gtest/gtest.h>

#include "common/errors.h"
#include "record/run_record.h"
#include "report/memory_view.h"
#include "report/record_output.h"
#include "report/run_report.h"
#include "report/run_scan.h"
#include "report/run_scan_rows.h"
#include "report/timeline_view.h"

namespace hpcsens::report {
namespace {

using nlohmann::json;

// Ranks 0-1 on n1 (16 GiB), ranks 2-3 on n2 (8 GiB); rank 2 peaks at 3 GiB.
json two_node_record() {
  record::RunRecord rec;
  rec.job.nranks = 4;
  rec.timing.job_s = 2;
  for (int i = 0; i < 4; ++i) {
    record::RankRecord r;
    r.rank = i;
    r.host = i < 2 ? "n1" : "n2";
    r.wall_s = 2, r.compute_s = 2;
    rec.ranks.push_back(r);
  }
  json j = record::to_json(rec);
  const std::int64_t peaks[] = {100000, 120000, 3 << 20, 200000};
  for (int i = 0; i < 4; ++i)
    j["ranks"][i]["memory"] = {{"peak_rss_kib", peaks[i]}, {"rss_kib", 5000}, {"node_total_kib", i < 2 ? 16 << 20 : 8 << 20}};
  return j;
}

TEST(MemoryView, PeaksPerRankAndSumsPerNodeFromTheScan) {
  const RunScan s = scan_run_record_text(two_node_record().dump(), "mem.json", 0);
  const MemoryTotals& m = s.measure.memory;
  EXPECT_EQ(m.ranks, 4u);
  EXPECT_EQ(m.max_kib, 3 << 20);
  EXPECT_EQ(m.max_rank, 2);
  EXPECT_EQ(m.min_kib, 100000);
  EXPECT_EQ(m.min_rank, 0);
  EXPECT_EQ(m.hosts.at("n1").peak_sum_kib, 220000);
  EXPECT_EQ(m.hosts.at("n2").peak_sum_kib, (3 << 20) + 200000);
  EXPECT_EQ(m.hosts.at("n2").total_kib, 8 << 20);
  EXPECT_EQ(peak_node(m)->first, "n2");
  // The careful reader's path (the page and JSON) gives the same totals.
  const RunScan careful = scan_with_extras(record::run_from_json(two_node_record(), "mem.json"));
  EXPECT_EQ(careful.measure.memory.hosts.at("n2").peak_sum_kib, m.hosts.at("n2").peak_sum_kib);
  EXPECT_EQ(careful.measure.memory.max_rank, 2);
}

TEST(MemoryView, SummaryCsvAndJsonSayThePeakRankAndNode) {
  const RunScan s = scan_run_record_text(two_node_record().dump(), "mem.json", 0);
  const auto rows = memory_summary_rows(s.measure.memory);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0][1], "3.00 GiB");
  EXPECT_EQ(rows[0][2], "rank 2");
  // n2: 3 GiB + 200,000 KiB of its 8 GiB = 39.9 %.
  EXPECT_EQ(rows[3][2], "n2, 39.9% of its 8.00 GiB") << rows[3][2];
  const std::string csv = tidy_csv(s, CsvTable::kSummary);
  EXPECT_NE(csv.find("peak_node_sum_kib,3345728\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("peak_node_host,n2\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("peak_rss_rank_max_rank,2\n"), std::string::npos) << csv;
  const json j = memory_totals_json(s.measure.memory);
  ASSERT_EQ(j.at("nodes").size(), 2u);
  EXPECT_EQ(j["nodes"][0].at("peak_sum_kib").get<long>(), 220000);
  EXPECT_NEAR(j["nodes"][1].at("peak_pct").get<double>(), 100.0 * 3345728 / (8 << 20), 1e-9);
  // Text: the summary rows and, with two hosts, the node table.
  const std::string text = render_run_report(s, ReportOptions{});
  EXPECT_NE(text.find("peak memory per rank: max (VmHWM)"), std::string::npos) << text;
  EXPECT_NE(text.find("Memory per node"), std::string::npos) << text;
}

TEST(MemoryView, RecordsWithoutMemorySayNothing) {
  json j = two_node_record();
  for (auto& r : j["ranks"]) r.erase("memory");
  const RunScan s = scan_run_record_text(j.dump(), "old.json", 0);
  EXPECT_TRUE(memory_summary_rows(s.measure.memory).empty());
  EXPECT_TRUE(memory_totals_json(s.measure.memory).is_null());
  EXPECT_EQ(tidy_csv(s, CsvTable::kSummary).find("peak_"), std::string::npos);
}

TEST(MemoryView, AMalformedPeakIsNamed) {
  json j = two_node_record();
  j["ranks"][1]["memory"]["peak_rss_kib"] = "lots";
  try {
    scan_run_record_text(j.dump(), "bad.json", 0);
    FAIL() << "accepted";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("bad.json"), std::string::npos) << what;
    EXPECT_NE(what.find("memory"), std::string::npos) << what;
  }
}

json timeline_of(int rank, std::vector<std::int64_t> rss) {
  const std::size_t n = rss.size();
  json t = {{"bin_s", 0.1}, {"bins", n}, {"calls", json::array()}, {"marks", json::array()}, {"rss_kib", rss}};
  t["compute_s"] = std::vector<double>(n, 0.1);
  t["mpi_s"] = std::vector<double>(n, 0.0);
  t["io_s"] = std::vector<double>(n, 0.0);
  t["top_mpi"] = std::vector<int>(n, -1);
  return {{"rank", rank}, {"timeline", t}};
}

TEST(MemoryView, TheTimelinesMemoryRowIsSummedOverRanksPerCell) {
  const auto ranks = timelines_of(json{timeline_of(0, {1000, 2000, 1500}), timeline_of(1, {500, 500, 4000})}, "r.json");
  const Grid g = common_grid(ranks);
  ASSERT_EQ(g.rss_kib.size(), 3u);
  EXPECT_DOUBLE_EQ(g.rss_kib[1], 2500);
  EXPECT_DOUBLE_EQ(g.rss_kib[2], 5500);
  const auto phases = timeline_phases(ranks);
  ASSERT_EQ(phases.size(), 1u);
  EXPECT_DOUBLE_EQ(phases[0].rss_kib, 5500);
  json bad = timeline_of(3, {1, 2});
  bad["timeline"]["rss_kib"] = {1};
  EXPECT_THROW(timelines_of(json{bad}, "r.json"), InputError);
}

}  // namespace
}  // namespace hpcsens::report
