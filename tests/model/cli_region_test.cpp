// `hpcsens fit --region`: one model per named region of the run records, through the real
// binary. The records are an EMULATED sweep written here (labelled "emulated": true): 12
// configurations whose "compute" region follows T = 40/R_cpu + 30/R_mem and whose "stream"
// region follows T = 2/R_cpu + 1500/R_mem (plus 1 s of set-up outside them), with a +-0.5 %
// deterministic wobble. A fit must tell the core-bound region from the memory-bound one.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include <nlohmann/json.hpp>

#include "record/run_record.h"
#include "tests/model/cli_fixture.h"

namespace hpcsens::model {
namespace {

using nlohmann::json;

class RegionFit : public CliTest {
 protected:
  // Writes the sweep; `without` names a region left out of records 0 and 1.
  void write_sweep(const std::string& without = "") {
    int n = 0;
    for (double cpu : {1.2, 1.8, 2.4, 3.0})
      for (double mem : {60.0, 90.0, 120.0}) {
        const double wobble = 1 + 0.005 * ((n % 3) - 1);
        const double compute = (40 / cpu + 30 / mem) * wobble;
        const double stream = (2 / cpu + 1500 / mem) * wobble;
        record::RunRecord r;
        r.job.command = {"mpirun", "-np", "2", "./two_regions"};
        r.job.nranks = 2;
        r.config = {{"cpu_ghz", cpu}, {"mem_gbs", mem}, {"sweep_point", n}};
        r.timing.job_s = compute + stream + 1.0;
        r.emulated = true;
        json j = record::to_json(r);
        for (int k = 0; k < 2; ++k) {
          const double slow = k == 1 ? 1.02 : 1.0;  // rank 1 is the slowest in each region
          json rk = record::to_json(record::RankRecord{});
          rk["rank"] = k;
          rk["wall_s"] = r.timing.job_s * (k == 1 ? 1.0 : 0.98);
          rk["regions"]["compute"] = {{"count", 1}, {"wall_s", compute * slow}, {"mpi_s", 0.0},
                                      {"io_s", 0.0}};
          rk["regions"]["stream"] = {{"count", 1}, {"wall_s", stream * slow}, {"mpi_s", 0.0},
                                     {"io_s", 0.0}};
          if (n < 2 && !without.empty()) rk["regions"].erase(without);
          j["ranks"].push_back(rk);
        }
        file("sweep/run" + std::to_string(n) + ".json", j.dump());
        ++n;
      }
  }
  static double share(const json& model, const std::string& term) {
    for (const auto& t : model.at("terms"))
      if (t.at("name") == term) return t.at("share").at("fit").get<double>();
    return -1;
  }
};

TEST_F(RegionFit, EachRegionGetsItsOwnModelAndTheyDiffer) {
  write_sweep();
  const auto compute = run("fit " + path("sweep") + " --region compute --format json");
  ASSERT_EQ(compute.exit_status, 0) << compute.err;
  const json c = json::parse(compute.out);
  EXPECT_EQ(c.at("region"), "compute");
  EXPECT_GT(share(c, "cpu"), 0.9) << compute.out;
  const auto stream = run("fit " + path("sweep") + " --region stream --format json");
  ASSERT_EQ(stream.exit_status, 0) << stream.err;
  const json s = json::parse(stream.out);
  EXPECT_EQ(s.at("region"), "stream");
  EXPECT_GT(share(s, "mem"), 0.9) << stream.out;
  // The slowest rank's region time is each run's time: the fit reproduces the truth x 1.02.
  for (const auto& p : s.at("points"))
    EXPECT_NEAR(p.at("observed_s").get<double>(),
                (2 / p.at("cpu_ghz").get<double>() + 1500 / p.at("mem_gbs").get<double>()) * 1.02,
                0.01 * p.at("observed_s").get<double>());
  const auto job = run("fit " + path("sweep") + " --format json");
  ASSERT_EQ(job.exit_status, 0) << job.err;
  EXPECT_FALSE(json::parse(job.out).contains("region"));
  const auto table = run("fit " + path("sweep") + " --region compute");
  EXPECT_NE(table.out.find("region: compute"), std::string::npos) << table.out;
}

TEST_F(RegionFit, AllFitsTheJobAndEveryRegionInJsonAndCsv) {
  write_sweep();
  const auto all = run("fit " + path("sweep") + " --region all --format json");
  ASSERT_EQ(all.exit_status, 0) << all.err;
  const json a = json::parse(all.out);
  ASSERT_EQ(a.size(), 3u);
  EXPECT_TRUE(a[0].at("region").is_null());
  EXPECT_EQ(a[1].at("region"), "compute");
  EXPECT_EQ(a[2].at("region"), "stream");
  EXPECT_GT(share(a[1], "cpu"), 0.9);
  EXPECT_GT(share(a[2], "mem"), 0.9);
  const auto csv = run("fit " + path("sweep") + " --region all --format csv");
  ASSERT_EQ(csv.exit_status, 0) << csv.err;
  EXPECT_EQ(csv.out.rfind("region,", 0), 0u) << csv.out;
  EXPECT_EQ(std::count(csv.out.begin(), csv.out.end(), '\n'), 1 + 3 * 12) << csv.out;
  EXPECT_NE(csv.out.find("\n,"), std::string::npos) << csv.out;  // the job's rows
  EXPECT_NE(csv.out.find("\ncompute,"), std::string::npos);
  EXPECT_NE(csv.out.find("\nstream,"), std::string::npos);
  const auto text = run("fit " + path("sweep") + " --region all");
  EXPECT_NE(text.out.find("== region stream =="), std::string::npos) << text.out;
}

TEST_F(RegionFit, MissingRegionExitsTwoNamingTheRegionAndTheRecords) {
  write_sweep("stream");
  const auto r = run("fit " + path("sweep") + " --region stream");
  EXPECT_EQ(r.exit_status, 2) << r.err;
  EXPECT_NE(r.err.find("region 'stream' is missing from 2 of 12 run records"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("run0.json"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("run1.json"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  const auto nowhere = run("fit " + path("sweep") + " --region solver");
  EXPECT_EQ(nowhere.exit_status, 2);
  EXPECT_NE(nowhere.err.find("region 'solver' is missing from 12 of 12"), std::string::npos)
      << nowhere.err;
  const std::string csv = file("t.csv", "label,cpu_ghz,mem_gbs,time_s\na,2,50,10\nb,1,50,18\n");
  const auto c = run("fit " + csv + " --region compute");
  EXPECT_EQ(c.exit_status, 2);
  EXPECT_NE(c.err.find("a CSV has no regions"), std::string::npos) << c.err;
  const auto o = run("fit " + path("sweep") + " --region all -o " + path("m.json"));
  EXPECT_EQ(o.exit_status, 2);
}

}  // namespace
}  // namespace hpcsens::model
