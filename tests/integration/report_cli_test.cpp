// `hpcsens report` as a user runs it: formats, --all, and bad input (exit 2 naming file + field).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "process.h"
#include "record/run_record.h"

namespace hpcsens::testing {
namespace {
namespace fs = std::filesystem;

const std::string kHpcsens = HPCSENS_BIN;

class ReportCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("hpcsens-report-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    record::RunRecord rec;
    rec.job.nranks = 40;
    rec.job.launcher = "openmpi";
    for (int i = 0; i < 40; ++i) {
      record::RankRecord r;
      r.rank = i;
      r.host = "n1";
      r.wall_s = 2;
      r.compute_s = i == 17 ? 1.9 : 1.0;
      r.mpi_s = 2 - r.compute_s;
      r.mpi_calls["MPI_Wait"] = {5, r.mpi_s, 0};
      rec.ranks.push_back(r);
    }
    rec.imbalance.slowest = {17};
    rec.imbalance.max_s = 1.9;
    rec.imbalance.mean_s = 1.0225;
    good_ = (dir_ / "good.json").string();
    std::ofstream(good_) << record::to_json(rec).dump();
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
  std::string good_;
};

TEST_F(ReportCli, TableSummarisesFortyRanksAndAllListsThem) {
  auto r = run_process({kHpcsens, "report", good_}, 30);
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_NE(r.out.find("Slowest 5 ranks"), std::string::npos);
  EXPECT_NE(r.out.find("Distribution over 40 ranks"), std::string::npos);
  EXPECT_NE(r.out.find("MPI_Wait"), std::string::npos);
  r = run_process({kHpcsens, "report", good_, "--all", "--format", "csv"}, 30);
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_NE(r.out.find("rank,host,wall [s],compute [s],MPI [s],I/O [s],MPI [%],top MPI calls"), std::string::npos);
  EXPECT_NE(r.out.find("\n39,n1,"), std::string::npos);
  r = run_process({kHpcsens, "report", good_, "--format", "md"}, 30);
  ASSERT_EQ(r.exit_status, 0);
  EXPECT_NE(r.out.find("| rank | host |"), std::string::npos);
}

TEST_F(ReportCli, JsonAndTidyCsvLoadBackWithTheRecordsNumbers) {
  auto r = run_process({kHpcsens, "report", good_, "--format", "json"}, 30);
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto original = nlohmann::json::parse(std::ifstream(good_));
  EXPECT_EQ(j["ranks"], original["ranks"]);
  EXPECT_EQ(j["derived"]["imbalance"]["slowest"][0], 17);
  EXPECT_EQ(j["derived"]["mpi_calls"]["MPI_Wait"]["count"], 200);

  r = run_process({kHpcsens, "report", good_, "--format", "csv", "--table", "ranks"}, 30);
  ASSERT_EQ(r.exit_status, 0) << r.err;
  std::istringstream in(r.out);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line.rfind("rank,host,pid,wall_s,compute_s,mpi_s,io_s,", 0), 0u) << line;
  int rows = 0;
  while (std::getline(in, line)) {
    std::istringstream cells(line);
    std::string rank, host, pid, wall, compute;
    std::getline(cells, rank, ',');
    std::getline(cells, host, ',');
    std::getline(cells, pid, ',');
    std::getline(cells, wall, ',');
    std::getline(cells, compute, ',');
    EXPECT_EQ(std::stod(compute), original["ranks"][rows]["compute_s"].get<double>());
    ++rows;
  }
  EXPECT_EQ(rows, 40);
}

TEST_F(ReportCli, HtmlGoesToTheOutputFile) {
  const auto page = (dir_ / "page.html").string();
  const auto r = run_process({kHpcsens, "report", good_, "--format", "html", "-o", page}, 30);
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find(page), std::string::npos);
  std::ifstream in(page);
  const std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("\"MPI_Wait\""), std::string::npos);
}

TEST_F(ReportCli, BadInputsExit2NamingFileAndField) {
  const std::string missing_field = (dir_ / "bad.json").string();
  auto j = nlohmann::json::parse(std::ifstream(good_));
  j["ranks"][3].erase("wall_s");
  std::ofstream(missing_field) << j.dump();
  auto r = run_process({kHpcsens, "report", missing_field}, 30);
  EXPECT_EQ(r.exit_status, 2);
  EXPECT_NE(r.err.find(missing_field), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("wall_s"), std::string::npos) << r.err;

  const std::string not_json = (dir_ / "truncated.json").string();
  std::ofstream(not_json) << "{\"schema\": \"hpcsens.run.v1\", ";
  r = run_process({kHpcsens, "report", not_json}, 30);
  EXPECT_EQ(r.exit_status, 2);
  EXPECT_NE(r.err.find("not valid JSON"), std::string::npos);

  r = run_process({kHpcsens, "report", (dir_ / "nope.json").string()}, 30);
  EXPECT_EQ(r.exit_status, 2);
  EXPECT_NE(r.err.find("nope.json"), std::string::npos);

  r = run_process({kHpcsens, "report", good_, "--format", "pdf"}, 30);
  EXPECT_EQ(r.exit_status, 2);
  EXPECT_NE(r.err.find("--format: 'pdf' is not a format here (use table|md|csv|json|html"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
  r = run_process({kHpcsens, "report", good_, "--table", "ranks"}, 30);
  EXPECT_EQ(r.exit_status, 2);
  EXPECT_EQ(r.err, "hpcsens: error: --table: only with --format csv (one tidy table per call)\n");
  r = run_process({kHpcsens, "report", good_, "--format", "csv", "--table", "all"}, 30);
  EXPECT_EQ(r.exit_status, 2);
  EXPECT_NE(r.err.find("unknown table 'all'"), std::string::npos) << r.err;
  r = run_process({kHpcsens, "report", dir_.string(), "--format", "html"}, 30);
  EXPECT_EQ(r.exit_status, 2);
  EXPECT_NE(r.err.find("is not a sweep directory"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("holds 3 run records (bad.json, good.json, truncated.json)"), std::string::npos) << r.err;

  // Usage errors are one line in the same form as every other error.
  r = run_process({kHpcsens, "report"}, 30);
  EXPECT_EQ(r.exit_status, 2);
  EXPECT_EQ(r.err.rfind("hpcsens: error: hpcsens report: input is required (usage: hpcsens report INPUT ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
  r = run_process({kHpcsens, "report", dir_.string()}, 30);
  EXPECT_EQ(r.exit_status, 2);
  // Not a sweep and several records: which ones (a directory with one record reads it: CliOptions).
  EXPECT_EQ(r.err, "hpcsens: error: " + dir_.string() + ": holds 3 run records (bad.json, good.json, truncated.json) "
                   "and is not a sweep directory (no journal.jsonl, records/ or model.json): name the one to report; give a run "
                   "record, or the directory hpcsens sweep wrote (-o DIR)\n");
}

}  // namespace
}  // namespace hpcsens::testing
