// One command line (issue 29): -o/--output on every subcommand that writes, predict --format html
// straight away, help that lists every value the parser accepts, and `report DIR` of a run's
// output directory with one record in it. Through the real hpcsens binary.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "minimal_record.h"
#include "process.h"
#include "record/run_record.h"

namespace hpcsens::testing {
namespace {
namespace fs = std::filesystem;

const std::string kHpcsens = HPCSENS_BIN;

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class CliOptions : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("hpcsens-options-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "run-out");
    write_minimal_record(dir_ / "run-out" / "app.0123456789abcdef.json");
    std::ofstream(dir_ / "good.csv") << "label,cpu_ghz,mem_gbs,time_s\na,1.2,100,20\nb,1.8,100,14.5\nc,2.4,100,11.6\n"
                                        "d,3.0,100,10\n";
    ASSERT_EQ(run_process({kHpcsens, "fit", (dir_ / "good.csv").string(), "-o", model().string()}, 60).exit_status, 0);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path model() const { return dir_ / "good.model.json"; }
  std::string record() const { return (dir_ / "run-out" / "app.0123456789abcdef.json").string(); }

  fs::path dir_;
};

TEST_F(CliOptions, PredictAndDoctorWriteToDashOAndOutput) {
  for (const char* flag : {"-o", "--output"}) {
    const auto out = dir_ / (std::string("pred") + flag + ".json");
    const auto r = run_process({kHpcsens, "predict", model().string(), "--cpu-ghz", "2.6", "--format", "json", flag,
                                out.string()}, 60);
    ASSERT_EQ(r.exit_status, 0) << flag << ": " << r.err;
    EXPECT_EQ(r.out, "") << flag;
    EXPECT_NE(r.err.find("hpcsens: predict: " + out.string()), std::string::npos) << r.err;
    EXPECT_EQ(nlohmann::json::parse(slurp(out))["schema"], "hpcsens.prediction.v1");
  }
  const auto doc = dir_ / "doctor.json";
  const auto d = run_process({kHpcsens, "doctor", "--format", "json", "-o", doc.string()}, 120);
  EXPECT_NE(d.exit_status, 2) << d.err;
  EXPECT_EQ(d.out, "");
  EXPECT_TRUE(nlohmann::json::parse(slurp(doc)).is_object());
}

TEST_F(CliOptions, PredictWritesItsPageDirectly) {
  const auto page = dir_ / "p.html";
  const auto r = run_process({kHpcsens, "predict", model().string(), "--cpu-ghz", "2.6", "--format", "html", "-o",
                              page.string()}, 60);
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const std::string html = slurp(page);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u) << html.substr(0, 80);
  EXPECT_NE(html.find("id=\"answer\""), std::string::npos);
  // The same page as `report` of the JSON.
  const auto json = dir_ / "p.json";
  ASSERT_EQ(run_process({kHpcsens, "predict", model().string(), "--cpu-ghz", "2.6", "--format", "json", "-o",
                         json.string()}, 60).exit_status, 0);
  const auto page2 = dir_ / "p2.html";
  ASSERT_EQ(run_process({kHpcsens, "report", json.string(), "--format", "html", "-o", page2.string()}, 60).exit_status, 0);
  EXPECT_EQ(slurp(page2), html);
}

// Every value help names is accepted, and every accepted one is named.
TEST_F(CliOptions, HelpListsEveryAcceptedValue) {
  const auto run_help = run_process({kHpcsens, "run", "--help"}, 30);
  for (const char* events : {"default", "none", "topdown", "topdown-l1"})
    EXPECT_NE(run_help.out.find(events), std::string::npos) << events << "\n" << run_help.out;
  const auto report_help = run_process({kHpcsens, "report", "--help"}, 30);
  for (const char* table : {"ranks", "summary", "calls", "counters", "topdown", "timeline", "callsites", "files",
                            "partners", "msg_sizes", "regions"}) {
    EXPECT_NE(report_help.out.find(table), std::string::npos) << table << "\n" << report_help.out;
    const auto r = run_process({kHpcsens, "report", record(), "--format", "csv", "--table", table}, 60);
    EXPECT_EQ(r.exit_status, 0) << table << ": " << r.err;
  }
  const auto predict_help = run_process({kHpcsens, "predict", "--help"}, 30);
  for (const char* f : {"table", "md", "csv", "json", "html", "--output"})
    EXPECT_NE(predict_help.out.find(f), std::string::npos) << f;
}

// `hpcsens run -o DIR` leaves one record in DIR: `report DIR` reads it, and says which.
TEST_F(CliOptions, ReportOfARunsOutputDirectoryReadsItsOneRecord) {
  const auto dir = run_process({kHpcsens, "report", (dir_ / "run-out").string()}, 60);
  ASSERT_EQ(dir.exit_status, 0) << dir.err;
  EXPECT_NE(dir.err.find("holds one run record: app.0123456789abcdef.json"), std::string::npos) << dir.err;
  const auto file = run_process({kHpcsens, "report", record()}, 60);
  EXPECT_EQ(dir.out, file.out);
}

}  // namespace
}  // namespace hpcsens::testing
