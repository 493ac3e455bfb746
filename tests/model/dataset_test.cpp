// Fit input from CSV and run records: medians, spread, per-rank times, and every bad input
// rejected with file, line and field.
#include <gtest/gtest.h>

#include <cmath>

#include <filesystem>
#include <fstream>

#include "common/errors.h"
#include "model/dataset.h"
#include "record/run_record.h"

namespace hpcsens::model {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() : path_(fs::temp_directory_path() / ("hpcsens_model_" + std::to_string(::getpid()) + "_" +
                                                  std::to_string(counter_++))) {
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string write(const std::string& name, const std::string& text) const {
    const fs::path p = path_ / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }
  std::string path() const { return path_.string(); }

 private:
  static inline int counter_ = 0;
  fs::path path_;
};

std::string error_of(const std::string& text) {
  try {
    parse_fit_csv(text, "in.csv");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(FitCsv, ParsesAndCombinesRepetitionsByMedian) {
  const auto obs = parse_fit_csv(
      "label,cpu_ghz,mem_gbs,time_s\n"
      "a,2.0,50,10.0\n"
      "a,2.0,50,12.0\n"
      "a,2.0,50,10.5\n"
      "# a comment\n"
      "b,1.0,50,19\n",
      "in.csv");
  const Dataset d = assemble(obs);
  ASSERT_EQ(d.points.size(), 2u);
  EXPECT_EQ(d.points[0].label, "a");
  EXPECT_DOUBLE_EQ(d.points[0].time_s, 10.5);
  EXPECT_DOUBLE_EQ(d.points[0].min_s, 10.0);
  EXPECT_DOUBLE_EQ(d.points[0].max_s, 12.0);
  EXPECT_EQ(d.points[0].reps, 3);
  EXPECT_TRUE(d.ranks.empty());
}

TEST(FitCsv, ColumnsInAnyOrderWithRankAndLatency) {
  const auto d = assemble(parse_fit_csv(
      "rank,time_s,label,mem_gbs,cpu_ghz,lat_ns\n"
      "0,10,a,50,2,90\n"
      "1,11,a,50,2,90\n"
      "0,20,b,50,1,90\n"
      "1,18,b,50,1,90\n",
      "in.csv"));
  ASSERT_EQ(d.points.size(), 2u);
  EXPECT_DOUBLE_EQ(d.points[0].time_s, 11.0);  // slowest rank
  EXPECT_DOUBLE_EQ(d.points[1].time_s, 20.0);
  EXPECT_DOUBLE_EQ(*d.points[0].lat_ns, 90.0);
  ASSERT_EQ(d.ranks, (std::vector<int>{0, 1}));
  EXPECT_DOUBLE_EQ(d.rank_times[1][1], 18.0);
}

// A network sweep's results.csv with STREAM off: mem_gbs empty (not measured, never 0), the
// network's rates in their own columns.
TEST(FitCsv, ASweepsResultsWithoutStreamAndWithNetworkRates) {
  const auto d = assemble(parse_fit_csv(
      "label,cpu_ghz,mem_gbs,time_s,run_id,emulated,net_latency_us,net_ns_per_byte\n"
      "base,2.9,,2.0,p00-r1,0,15.5,1.07\n"
      "base,2.9,,2.2,p00-r2,0,18.5,1.07\n"
      "lat50,2.9,,2.5,p01-r1,0,67,1.07\n",
      "results.csv"));
  ASSERT_EQ(d.points.size(), 2u);
  EXPECT_TRUE(std::isnan(d.points[0].mem_gbs));
  EXPECT_DOUBLE_EQ(*d.points[0].net_latency_us, 17.0);
  EXPECT_DOUBLE_EQ(*d.points[1].net_ns_per_byte, 1.07);
  EXPECT_EQ(d.points[0].label, "base");
}

TEST(FitCsv, WindowsLineEndingsAndByteOrderMark) {
  const auto d = assemble(parse_fit_csv("\xEF\xBB\xBFlabel,cpu_ghz,mem_gbs,time_s\r\na,2,50,10\r\n", "in.csv"));
  ASSERT_EQ(d.points.size(), 1u);
  EXPECT_DOUBLE_EQ(d.points[0].time_s, 10.0);
}

TEST(FitCsv, BadInputsNameFileLineAndField) {
  const std::string h = "label,cpu_ghz,mem_gbs,time_s\n";
  EXPECT_EQ(error_of(h + "a,2,50,nan\n"), "in.csv:2: field 'time_s': 'nan' is not a finite number");
  EXPECT_EQ(error_of(h + "a,2,50,-3\n"), "in.csv:2: field 'time_s': '-3' must be greater than zero");
  EXPECT_EQ(error_of(h + "a,2,50,1\na,2,50,0\n"), "in.csv:3: field 'time_s': '0' must be greater than zero");
  EXPECT_EQ(error_of(h + "a,2,fast,1\n"), "in.csv:2: field 'mem_gbs': 'fast' is not a number");
  EXPECT_EQ(error_of(h + "a,2,50,\n"), "in.csv:2: field 'time_s': empty value");
  EXPECT_NE(error_of("label,cpu_ghz,time_s\na,2,1\n").find("in.csv:1: header: missing column 'mem_gbs'"),
            std::string::npos);
  EXPECT_EQ(error_of(h + "a,2,50\n"), "in.csv:2: expected 4 fields as in the header, found 3");
  EXPECT_NE(error_of("").find("in.csv: empty file"), std::string::npos);
  EXPECT_NE(error_of(h).find("no data rows"), std::string::npos);
  EXPECT_EQ(error_of("label,cpu_ghz,mem_gbs,time_s,rank\na,2,50,1,x\n"), "in.csv:2: field 'rank': 'x' is not a number");
}

// Regression (QA): hex was read as a number, and 1e300 reached GLPK and aborted the process.
TEST(FitCsv, NumbersMustBeDecimalAndPlausible) {
  const std::string h = "label,cpu_ghz,mem_gbs,time_s,lat_ns\n";
  EXPECT_EQ(error_of(h + "a,2,50,0x41,90\n"), "in.csv:2: field 'time_s': '0x41' is not a decimal number");
  EXPECT_EQ(error_of(h + "a,2,50,inf,90\n"), "in.csv:2: field 'time_s': 'inf' is not a finite number");
  EXPECT_EQ(error_of(h + "a,2,50,1e300,90\n"),
            "in.csv:2: field 'time_s': 1e+300 is outside the plausible range 1e-09 to 1e+07");
  EXPECT_NE(error_of(h + "a,2,50,1e200,90\n").find("in.csv:2: field 'time_s'"), std::string::npos);
  EXPECT_NE(error_of(h + "a,2,50,1e999,90\n").find("in.csv:2: field 'time_s'"), std::string::npos);
  EXPECT_NE(error_of(h + "a,2,1e300,10,90\n").find("in.csv:2: field 'mem_gbs': 1e+300 is outside"),
            std::string::npos);
  EXPECT_NE(error_of(h + "a,500,50,10,90\n").find("in.csv:2: field 'cpu_ghz': 500 is outside"), std::string::npos);
  EXPECT_NE(error_of(h + "a,0.001,50,10,90\n").find("field 'cpu_ghz'"), std::string::npos);
  EXPECT_NE(error_of(h + "a,2,50,10,1e9\n").find("in.csv:2: field 'lat_ns': 1e+09 is outside"), std::string::npos);
  EXPECT_EQ(error_of(h + "a,2,50,.5,90\nb,1.5e0,5E1,1e1,+90\n"), "");
}

TEST(FitCsv, UnreadableFileIsNamed) {
  try {
    load_dataset({"/nonexistent/dir/x.csv"});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/x.csv"), std::string::npos);
  }
}

record::RunRecord make_record(double cpu, double mem, double job_s, bool emulated = false) {
  record::RunRecord r;
  r.job.command = {"mpirun", "./app"};
  r.job.nranks = 2;
  r.config = {{"cpu_ghz", cpu}, {"mem_gbs", mem}, {"label", "x"}};
  r.timing.job_s = job_s;
  for (int k = 0; k < 2; ++k) {
    record::RankRecord rk;
    rk.rank = k;
    rk.wall_s = job_s * (0.9 + 0.1 * k);
    r.ranks.push_back(rk);
  }
  r.emulated = emulated;
  return r;
}

std::string write_record(const TempDir& dir, const std::string& name, const record::RunRecord& r) {
  return dir.write(name, record::to_json(r).dump());
}

TEST(RunRecords, DirectoryIsReadRecursivelyAndOtherJsonSkipped) {
  TempDir dir;
  write_record(dir, "a/r1.json", make_record(2.0, 50, 10.0));
  write_record(dir, "a/r2.json", make_record(2.0, 50, 11.0));
  write_record(dir, "b/deep/r3.json", make_record(1.0, 50, 18.0, true));
  dir.write("model.json", R"({"schema": "hpcsens.model.v1"})");
  dir.write("notes.txt", "not data");
  const Dataset d = load_dataset({dir.path()});
  ASSERT_EQ(d.points.size(), 2u);
  EXPECT_DOUBLE_EQ(d.points[0].time_s, 10.5);
  EXPECT_EQ(d.points[0].reps, 2);
  EXPECT_TRUE(d.emulated);
  EXPECT_EQ(d.notes.size(), 1u);
  ASSERT_EQ(d.ranks.size(), 2u);
  EXPECT_DOUBLE_EQ(d.rank_times[1][1], 18.0);
}

TEST(RunRecords, MissingCpuRateIsNamed) {
  TempDir dir;
  auto r = make_record(2.0, 50, 10.0);
  r.config.erase("cpu_ghz");
  const std::string p = write_record(dir, "r.json", r);
  try {
    load_dataset({p});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), p + ": field 'config.cpu_ghz': missing");
  }
}

TEST(RunRecords, NonPositiveTimeIsNamed) {
  TempDir dir;
  const std::string p = write_record(dir, "r.json", make_record(2.0, 50, 0.0));
  EXPECT_THROW(load_dataset({p}), InputError);
}

}  // namespace
}  // namespace hpcsens::model
