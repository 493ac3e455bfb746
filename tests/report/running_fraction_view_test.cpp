// The counters' running fraction in the report: one line for the run in text, Markdown and CSV
// comments, one object in the JSON, the reason column of the counters CSV and the page's
// Counters section; the fast readers read the null + reason the writer writes, and old records'
// {} still read (as "not recorded").
#include "report/running_fraction_view.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "report/html_report.h"
#include "report/record_output.h"
#include "report/record_reader.h"
#include "report/run_report.h"
#include "tests/report/report_fixtures.h"

namespace hpcsens::report {
namespace {

namespace fs = std::filesystem;

constexpr char kPinned[] = "pinned group: counted all the time";
constexpr char kMux[] = "multiplexed: PAPI returns no fraction";
constexpr char kLine[] =
    "Counter running fraction: 100.0 % at least (rank 0), 1 of 3 ranks (pinned group: counted all the time); "
    "not known on 2 of 3 ranks: 1 rank(s): multiplexed: PAPI returns no fraction; 1 rank(s): no counters: "
    "counters unavailable: no PMU";

// Rank 0 known (pinned), rank 1 multiplexed, rank 2 counted nothing.
record::RunRecord three_ranks() {
  record::RunRecord rec = testing::small_job(3, false);
  rec.ranks[0].counter_running_fraction = {{"PAPI_TOT_INS", 1.0}, {"perf::CONTEXT-SWITCHES", 1.0}};
  rec.ranks[0].counter_running_fraction_reason = kPinned;
  rec.ranks[1].multiplexed = true;
  rec.ranks[1].counter_running_fraction_reason = kMux;
  rec.ranks[2].counters.clear();
  rec.ranks[2].counters_status = "counters unavailable: no PMU";
  return rec;
}

class RunningFractionFile : public ::testing::Test {
 protected:
  std::string path_ = (fs::temp_directory_path() / ("hpcsens_rf_" + std::to_string(::getpid()) + ".json")).string();
  void TearDown() override { fs::remove(path_); }
  void write(const nlohmann::json& j) { std::ofstream(path_) << j.dump(); }
};

TEST(RunningFractionView, OneLineNamesTheLeastAndEveryReason) {
  const auto f = running_fraction_summary(scan_of(three_ranks()));
  EXPECT_EQ(f.known, 1u);
  EXPECT_EQ(f.least_rank, 0);
  EXPECT_EQ(running_fraction_line(f), kLine);
  const auto j = running_fraction_json(f);
  EXPECT_EQ(j["least"], 1.0);
  EXPECT_EQ(j["unknown_because"][1]["reason"], "no counters: counters unavailable: no PMU");
}

TEST(RunningFractionView, NothingKnownSaysNotKnownOnceWithoutAPercentage) {
  record::RunRecord rec = testing::small_job(4, false);
  for (auto& r : rec.ranks) r.counters.clear(), r.counters_status = "counters unavailable: no PMU";
  const std::string line = running_fraction_line(running_fraction_summary(scan_of(rec)));
  EXPECT_EQ(line, "Counter running fraction: not known on 4 of 4 ranks: no counters: counters unavailable: no PMU");
  const auto j = running_fraction_json(running_fraction_summary(scan_of(rec)));
  EXPECT_TRUE(j["least"].is_null());
}

TEST(RunningFractionView, AQuotedReasonCannotDriveTheTerminal) {
  record::RunRecord rec = testing::small_job(1, false);
  rec.ranks[0].counter_running_fraction_reason = "multiplexed\x1b[2J";
  const std::string line = running_fraction_line(running_fraction_summary(scan_of(rec)));
  EXPECT_EQ(line.find('\x1b'), std::string::npos) << line;
}

// The fast scan, the fast reader and the careful reader read what the writer wrote alike.
TEST_F(RunningFractionFile, EveryReaderReadsNullAndTheReason) {
  const nlohmann::json written = record::to_json(three_ranks());
  ASSERT_TRUE(written["ranks"][1]["counter_running_fraction"].is_null());
  write(written);
  EXPECT_EQ(running_fraction_line(running_fraction_summary(scan_run_record(path_, 0))), kLine);
  EXPECT_EQ(record::to_json(read_run_record(path_)), written);
  EXPECT_EQ(record::to_json(record::load_run_record(path_)), written);
}

TEST_F(RunningFractionFile, AnOldRecordsEmptyObjectStillReadsAsNotRecorded) {
  nlohmann::json j = record::to_json(testing::small_job(2, false));
  for (auto& r : j["ranks"]) r["counter_running_fraction"] = nlohmann::json::object(), r.erase("counter_running_fraction_reason");
  j["ranks"][1]["counter_running_fraction"] = {{"PAPI_TOT_INS", 0.5}};
  write(j);
  const std::string line = running_fraction_line(running_fraction_summary(scan_run_record(path_, 0)));
  EXPECT_EQ(line, "Counter running fraction: 50.0 % at least (rank 1), 1 of 2 ranks; not known on 1 of 2 ranks: "
                  "not recorded (the writer of this record gave no fraction)");
  EXPECT_EQ(read_run_record(path_).ranks[1].counter_running_fraction.at("PAPI_TOT_INS"), 0.5);
}

TEST_F(RunningFractionFile, EveryFormatSaysItOnce) {
  write(record::to_json(three_ranks()));
  const RunScan scan = scan_run_record(path_, 0);
  auto count = [](const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
    return n;
  };
  ReportOptions opt;
  const std::string text = render_run_report(scan, opt);
  EXPECT_EQ(count(text, "Counter running fraction: 100.0 % at least (rank 0)"), 1u) << text;
  EXPECT_EQ(count(text, "no counters: counters unavailable: no PMU"), 1u) << text;
  opt.format = Format::kMarkdown;
  EXPECT_EQ(count(render_run_report(scan, opt), std::string("\n") + kLine + "\n"), 1u);
  const nlohmann::json j = record_report_json(three_ranks());
  EXPECT_EQ(j["derived"]["counter_running_fraction"]["known"], 1);
  EXPECT_EQ(j["derived"]["counter_running_fraction"]["unknown_because"][0]["reason"], kMux);
  const std::string page = html_report(path_);
  EXPECT_EQ(count(page, "Counter running fraction: 100.0 % at least (rank 0)"), 1u);
}

// The counters CSV: running_fraction where known, empty with the reason beside it where not.
TEST(RunningFractionView, CountersCsvCarriesTheReasonBesideAnEmptyFraction) {
  const std::string csv = tidy_csv(three_ranks(), CsvTable::kCounters);
  EXPECT_EQ(csv.rfind("rank,counter,value,multiplexed,running_fraction,unit,running_fraction_reason\n", 0), 0u) << csv;
  EXPECT_NE(csv.find("\n0,PAPI_TOT_INS,25000000000,false,1,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(std::string("\n1,PAPI_TOT_INS,25000000001,true,,instructions,") + kMux + "\n"), std::string::npos)
      << csv;
}

}  // namespace
}  // namespace hpcsens::report
