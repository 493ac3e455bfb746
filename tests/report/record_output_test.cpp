// Machine output of a record: JSON and tidy CSV are loaded back and give the record's numbers
// exactly; counters appear in text and Markdown; text tables fit 120 columns.
#include <gtest/gtest.h>

#include <sstream>

#include "common/errors.h"
#include "report/record_output.h"
#include "report/run_report.h"
#include "report_fixtures.h"
#include "topdown/metrics.h"

namespace hpcsens::report {
namespace {

using testing::small_job;

// Rows of a CSV without quoted cells (the fixtures have none), header first.
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::string cell;
    std::istringstream l(line);
    while (std::getline(l, cell, ',')) cells.push_back(cell);
    if (!line.empty() && line.back() == ',') cells.emplace_back();
    rows.push_back(cells);
  }
  return rows;
}

std::size_t column(const std::vector<std::string>& header, const std::string& name) {
  for (std::size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return i;
  ADD_FAILURE() << "no column " << name;
  return 0;
}

TEST(RecordJson, LoadsBackAsTheSameRecordPlusDerivedNumbers) {
  const auto rec = small_job(8, false);
  const auto text = record_report_json(rec).dump(1);
  const auto j = nlohmann::json::parse(text);
  const auto back = record::run_from_json(j, "report.json");
  ASSERT_EQ(back.ranks.size(), rec.ranks.size());
  for (std::size_t i = 0; i < rec.ranks.size(); ++i) {
    EXPECT_EQ(back.ranks[i].wall_s, rec.ranks[i].wall_s);
    EXPECT_EQ(back.ranks[i].compute_s, rec.ranks[i].compute_s);
    EXPECT_EQ(back.ranks[i].mpi_s, rec.ranks[i].mpi_s);
    EXPECT_EQ(back.ranks[i].io_s, rec.ranks[i].io_s);
    EXPECT_EQ(back.ranks[i].counters, rec.ranks[i].counters);
    EXPECT_EQ(back.ranks[i].mpi_calls.at("MPI_Isend").seconds, rec.ranks[i].mpi_calls.at("MPI_Isend").seconds);
  }
  EXPECT_EQ(back.timing.job_s, rec.timing.job_s);
  const auto im = imbalance_of(rec);
  EXPECT_EQ(j["derived"]["imbalance"]["max_over_mean"].get<double>(), im.max_over_mean);
  EXPECT_EQ(j["derived"]["imbalance"]["slowest"][0].get<int>(), 3);
  EXPECT_EQ(j["derived"]["distribution_s"]["compute"]["max"].get<double>(), 9.0 + 1.0 / 3.0);
  double isend = 0;
  for (const auto& r : rec.ranks) isend += r.mpi_calls.at("MPI_Isend").seconds;
  EXPECT_EQ(j["derived"]["mpi_calls"]["MPI_Isend"]["seconds"].get<double>(), isend);
}

TEST(TidyCsv, RanksTableReadsBackExactly) {
  const auto rec = small_job(8, false);
  const auto rows = parse_csv(tidy_csv(rec, CsvTable::kRanks));
  ASSERT_EQ(rows.size(), 9u);
  const auto& h = rows[0];
  EXPECT_EQ(h[0], "rank");
  for (std::size_t i = 0; i < 8; ++i) {
    const auto& row = rows[i + 1];
    ASSERT_EQ(row.size(), h.size());
    EXPECT_EQ(std::stoi(row[column(h, "rank")]), rec.ranks[i].rank);
    EXPECT_EQ(std::stod(row[column(h, "wall_s")]), rec.ranks[i].wall_s);
    EXPECT_EQ(std::stod(row[column(h, "compute_s")]), rec.ranks[i].compute_s);
    EXPECT_EQ(std::stod(row[column(h, "mpi_s")]), rec.ranks[i].mpi_s);
    EXPECT_EQ(std::stod(row[column(h, "io_s")]), rec.ranks[i].io_s);
    EXPECT_EQ(std::stoull(row[column(h, "io_bytes_written")]), rec.ranks[i].io_bytes_written);
  }
}

TEST(TidyCsv, CallsAndCountersAreOneValuePerRow) {
  const auto rec = small_job(4, false);
  auto rows = parse_csv(tidy_csv(rec, CsvTable::kCalls));
  ASSERT_EQ(rows.size(), 1u + 4 * 4);  // 3 MPI calls + 1 I/O call per rank
  // Bytes by direction, one column each (issue 20: a single bytes column mixed sent and received).
  EXPECT_EQ(rows[0], (std::vector<std::string>{"rank", "class", "call", "count", "seconds", "bytes_sent",
                                               "bytes_received", "bytes_read", "bytes_written"}));
  for (std::size_t k = 1; k < rows.size(); ++k) {
    const auto& r = rec.ranks[std::stoul(rows[k][0])];
    const auto& calls = rows[k][1] == "mpi" ? r.mpi_calls : r.io_calls;
    EXPECT_EQ(std::stod(rows[k][4]), calls.at(rows[k][2]).seconds);
    EXPECT_EQ(std::stoull(rows[k][3]), calls.at(rows[k][2]).count);
    const std::uint64_t moved = std::stoull(rows[k][5]) + std::stoull(rows[k][6]) + std::stoull(rows[k][7]) +
                                std::stoull(rows[k][8]);
    EXPECT_EQ(moved, calls.at(rows[k][2]).bytes) << rows[k][2];
  }
  rows = parse_csv(tidy_csv(rec, CsvTable::kCounters));
  ASSERT_EQ(rows.size(), 1u + 4 * 2);
  for (std::size_t k = 1; k < rows.size(); ++k)
    EXPECT_EQ(std::stod(rows[k][2]), rec.ranks[std::stoul(rows[k][0])].counters.at(rows[k][1]));
}

TEST(TidyCsv, SummaryAndTopdownCarryTheDerivedNumbers) {
  const auto rec = small_job(4, true);
  auto rows = parse_csv(tidy_csv(rec, CsvTable::kSummary));
  std::map<std::string, std::string> summary;
  for (std::size_t k = 1; k < rows.size(); ++k) summary[rows[k][0]] = rows[k].size() > 1 ? rows[k][1] : "";
  EXPECT_EQ(std::stod(summary.at("job_s")), rec.timing.job_s);
  EXPECT_EQ(std::stod(summary.at("compute_max_s")), 9.0 + 1.0 / 3.0);
  EXPECT_EQ(std::stod(summary.at("imbalance_max_over_mean")), imbalance_of(rec).max_over_mean);
  rows = parse_csv(tidy_csv(rec, CsvTable::kTopdown));
  ASSERT_EQ(rows.size(), 5u);
  const auto m = topdown::compute_metrics(rec.ranks[0].event_set, rec.ranks[0].counters);
  ASSERT_TRUE(m.ok);
  EXPECT_EQ(rows[1][column(rows[0], "ok")], "true");
  EXPECT_EQ(std::stod(rows[1][column(rows[0], "backend_bound")]), *m.backend_bound);
  EXPECT_EQ(std::stod(rows[1][column(rows[0], "retiring")]), *m.retiring);
  EXPECT_EQ(rows[1][column(rows[0], "flagged_path")], topdown::path_text(topdown::flagged_path(m)));
}

TEST(TidyCsv, UnknownTableIsAnInputError) {
  EXPECT_THROW(parse_csv_table("everything"), InputError);
  EXPECT_EQ(parse_csv_table("topdown"), CsvTable::kTopdown);
}

TEST(TextReport, ShowsCounterValuesInTextAndMarkdown) {
  const auto rec = small_job(4, false);
  ReportOptions opt;
  const auto text = render_run_report(rec, opt);
  EXPECT_NE(text.find("Counters over 4 ranks"), std::string::npos);
  EXPECT_NE(text.find("PAPI_TOT_INS"), std::string::npos);
  EXPECT_NE(text.find("25,000,000,003"), std::string::npos);  // rank 3's value, per rank
  EXPECT_NE(text.find("PAPI_TOT_INS [instructions]"), std::string::npos);  // per-rank header with its unit
  opt.format = Format::kMarkdown;
  const auto md = render_run_report(rec, opt);
  EXPECT_NE(md.find("### Counters per rank"), std::string::npos);
  EXPECT_NE(md.find("| perf::CONTEXT-SWITCHES | switches |"), std::string::npos);
}

TEST(TextReport, EveryLineFitsA120ColumnTerminal) {
  auto rec = small_job(40, true);
  rec.job.command.push_back(std::string(300, 'x'));  // one long value: shortened, not wrapped past 120
  rec.config["note"] = "a long sentence that goes on and on about the configuration of this run, more than a "
                       "terminal line can hold, so it has to wrap at spaces onto the following lines of the cell";
  ReportOptions opt;
  opt.all_ranks = true;
  const auto text = render_run_report(rec, opt);
  std::istringstream in(text);
  std::string line;
  std::size_t longest = 0;
  while (std::getline(in, line)) {
    longest = std::max(longest, line.size());
    EXPECT_LE(line.size(), kTextWidth) << line;
  }
  EXPECT_GT(longest, 80u);
  EXPECT_NE(text.find("xxx..."), std::string::npos);  // the long word, shortened
  EXPECT_NE(text.find("lines of the cell"), std::string::npos);  // the sentence, wrapped and whole
}

}  // namespace
}  // namespace hpcsens::report

namespace hpcsens::report {
namespace {

TEST(RecordJson, CarriesPerRankTopdownAndNoRatesFromFailedCounters) {
  auto rec = testing::small_job(4, true);
  rec.ranks[2].counters_status = "Top-Down unavailable: UOPS_ISSUED:ANY not supported";  // partial counts kept
  const nlohmann::json j = record_report_json(rec);
  const auto& td = j.at("derived").at("topdown");
  ASSERT_EQ(td.size(), 4u);
  const auto m = topdown::compute_metrics(rec.ranks[0].event_set, rec.ranks[0].counters);
  ASSERT_TRUE(m.ok && m.ipc.has_value());
  EXPECT_EQ(td[0].at("rank"), rec.ranks[0].rank);
  EXPECT_EQ(td[0].at("event_set"), "topdown-skx");
  EXPECT_EQ(td[0].at("backend_bound").get<double>(), *m.backend_bound);
  EXPECT_EQ(td[0].at("ipc").get<double>(), *m.ipc);
  EXPECT_FALSE(td[2].at("ok").get<bool>());
  EXPECT_EQ(td[2].at("why_not"), rec.ranks[2].counters_status);
  EXPECT_FALSE(td[2].contains("ipc")) << td[2].dump();
  EXPECT_FALSE(td[2].contains("ghz")) << td[2].dump();
  EXPECT_FALSE(td[2].contains("retiring")) << td[2].dump();
  // Without a Top-Down set there is nothing to derive.
  EXPECT_FALSE(record_report_json(testing::small_job(4, false)).at("derived").contains("topdown"));
}

}  // namespace
}  // namespace hpcsens::report
