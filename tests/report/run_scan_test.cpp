// The one-pass record scan (report/run_scan.h) against the careful reader: the same report from
// the same file, in every format and view, and messages that name the file, rank and field
// when it settles a bad record by itself.
#include "report/run_scan.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "common/errors.h"
#include "report/measure_section.h"
#include "report/run_report.h"
#include "report_fixtures.h"

namespace hpcsens::report {
namespace {

namespace fs = std::filesystem;

class Scan : public ::testing::Test {
 protected:
  void SetUp() override { path_ = fs::temp_directory_path() / ("hpcsens-scan-" + std::to_string(::getpid()) + ".json"); }
  void TearDown() override { fs::remove(path_); }
  void write(const std::string& text) { std::ofstream(path_) << text; }
  std::string message(std::size_t careful_limit) {
    try {
      scan_run_record(path_.string(), careful_limit);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  }
  fs::path path_;
};

// The report from the scan equals the one from the careful reader's RunRecord plus the
// measurement section read on its own: every table, every view, every format.
TEST_F(Scan, GivesTheSameReportAsTheCarefulReader) {
  for (const int n : {4, 33}) {
    for (const bool topdown : {false, true}) {
      write(testing::with_rank_extras(record::to_json(testing::small_job(n, topdown))).dump(1));
      const auto careful = record::load_run_record(path_.string());
      const auto scan = scan_run_record(path_.string());
      EXPECT_EQ(scan.rows.size(), static_cast<std::size_t>(n));
      for (const Format f : {Format::kTable, Format::kCsv, Format::kMarkdown}) {
        for (const bool all : {false, true}) {
          ReportOptions opt;
          opt.format = f;
          opt.all_ranks = all;
          const std::string expected = render_run_report(careful, opt) + render_measure_section(path_.string(), f);
          EXPECT_EQ(render_run_report(scan, opt), expected) << n << " ranks, format " << static_cast<int>(f);
        }
      }
    }
  }
}

TEST_F(Scan, ShowsTheMeasurementSectionAndTheExtremeRanksInFull) {
  write(testing::with_rank_extras(record::to_json(testing::small_job(33, false))).dump());
  const std::string text = render_run_report(scan_run_record(path_.string()), {});
  EXPECT_NE(text.find("Heaviest point-to-point partners"), std::string::npos) << text;
  EXPECT_NE(text.find("Regions and MPI_Pcontrol phases"), std::string::npos) << text;
  // Rank 3 computes the longest: its row, with its host and its calls, read back from its bytes.
  const auto row = text.find("\n    3  node001");
  ASSERT_NE(row, std::string::npos) << text;
  EXPECT_NE(text.find("MPI_Allreduce", row), std::string::npos);
}

// Above the careful reader's limit the scan words the message itself: file, rank, field.
TEST_F(Scan, NamesFileRankAndFieldWhenItDecidesAlone) {
  const std::string good = testing::with_rank_extras(record::to_json(testing::small_job(2, false))).dump();
  auto broken = [&](const std::string& from, const std::string& to) {
    std::string s = good;
    const auto p = s.find(from);
    EXPECT_NE(p, std::string::npos) << from;
    return s.replace(p, from.size(), to);
  };
  const std::string file = path_.string();
  const struct {
    std::string text, expected;
  } cases[] = {
      {broken("\"compute_s\":", "\"compute_s\":\"x\",\"compute_s\":"), file + ": ranks[0]: field 'compute_s' is not a number"},
      {broken("\"io_s\":", "\"mpi_s\":1,\"io_s\":"), file + ": ranks[0]: duplicate key 'mpi_s'"},
      {broken("\"schema\":\"hpcsens.run.v1\"", "\"schema\":\"other\""), file + ": field 'schema' is 'other'"},
      {broken("\"partners\":[", "\"partners\":[7,"), file + ": ranks[0].partners: field 'partners[]' is not an object"},
      {broken("\"rank\":1,", "\"rank\":0,"), file + ": ranks[1]: field 'rank': rank 0 appears twice"},
  };
  for (const auto& c : cases) {
    write(c.text);
    EXPECT_EQ(message(0).substr(0, c.expected.size()), c.expected);
    EXPECT_NE(message(std::size_t{1} << 30), "");  // the careful reader refuses it too
  }
}

// The measurement fields are the report's own: malformed ones are refused naming the rank and
// field, whatever the size (the careful reader does not read them).
TEST_F(Scan, RefusesMalformedMeasurementFields) {
  auto j = testing::with_rank_extras(record::to_json(testing::small_job(2, false)));
  j["ranks"][1]["regions"]["solve"]["wall_s"] = "long";
  write(j.dump());
  EXPECT_EQ(message(std::size_t{1} << 30), path_.string() + ": ranks[1].regions.solve: field 'wall_s' is not a number");
  EXPECT_NO_THROW(record::load_run_record(path_.string()));
}

}  // namespace
}  // namespace hpcsens::report
