// Energy through the real `hpcsens fit` and `hpcsens predict`: run records whose `energy` section
// (docs/record-format.md) carries package and DRAM joules, the model JSON's `energy` object
// (docs/model-format.md), --max-slowdown and its refusals, and the one line where there is no energy.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "record/run_record.h"
#include "tests/model/cli_fixture.h"

namespace hpcsens::model {
namespace {

using nlohmann::json;

// Truth: P = 60 + 4 f^3 W on the package, 10 W of DRAM; T = 40 / f + 20 s.
double truth_power(double f) { return 60 + 4 * f * f * f; }
double truth_time(double f) { return 40 / f + 20; }

json energy_section(double f, double t, bool dram) {
  json by = {{"package", truth_power(f) * t}};
  if (dram) by["dram"] = 10 * t;
  return {{"available", true},
          {"source", "powercap"},
          {"nodes", json::array({{{"host", "n1"},
                                  {"available", true},
                                  {"duration_s", t},
                                  {"joules_by_domain", by},
                                  {"domains", json::array()}}})}};
}

class EnergyCli : public CliTest {
 protected:
  // One record per clock and repetition, as a sweep writes them; `energy` false: a VM's reason.
  std::string records(bool energy, bool dram = true) {
    int point = 0;
    for (double f : {1.2, 1.6, 2.0, 2.4, 2.8, 3.2}) {
      for (int rep = 0; rep < 2; ++rep) {
        record::RunRecord r;
        r.job.nranks = 1;
        r.job.command = {"./app"};
        const double t = truth_time(f) * (rep ? 1.004 : 0.996);
        r.timing.job_s = t;
        record::RankRecord rk;
        rk.wall_s = t, rk.compute_s = t;
        r.ranks.push_back(rk);
        r.config = {{"cpu_ghz", f}, {"label", fmt::format("f{:g}", f)}, {"sweep_point", point},
                    {"cpu_ghz_source", "measured"}};
        r.extra["energy"] = energy ? energy_section(f, t, dram)
                                   : json{{"available", false},
                                          {"reason", "not available: no RAPL powercap zones under /sys/class/powercap "
                                                     "(a virtual machine, ...)"}};
        file(fmt::format("sweep/p{}_{}.json", point, rep), record::to_json(r).dump());
      }
      ++point;
    }
    return path("sweep");
  }
};

TEST_F(EnergyCli, FitWritesTheEnergyObjectFromTheRecordsEnergySections) {
  const std::string dir = records(true);
  const auto r = run("fit " + dir + " --model cpu+fixed --max-slowdown 10% -o " + path("m.json"));
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_NE(r.out.find("energy (package+dram;"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("answer: running at "), std::string::npos) << r.out;
  std::ifstream in(path("m.json"));
  const json m = json::parse(in);
  const json& e = m.at("energy");
  ASSERT_TRUE(e.at("available").get<bool>()) << e.dump();
  EXPECT_EQ(e.at("domains"), "package+dram");
  EXPECT_EQ(e.at("points").size(), 6u);
  EXPECT_DOUBLE_EQ(e.at("max_slowdown_pct").get<double>(), 10);
  // The f = 1.2 point's measured power: package + DRAM joules over the reader's span.
  const json& p0 = e.at("points")[0];
  EXPECT_NEAR(p0.at("power_w").get<double>(), truth_power(1.2) + 10, 1e-6);
  EXPECT_EQ(p0.at("source"), "swept");  // a configuration the sweep ran (its energy measured here)
  EXPECT_TRUE(p0.at("pareto").is_boolean());
  // The truth's optima: E(f) = (70 + 4 f^3)(40/f + 20) is least at 1.6 GHz on this grid; within
  // 10 % of T(3.2) = 32.5 s only 2.8 and 3.2 GHz remain, and 2.8 GHz uses less energy.
  EXPECT_EQ(e.at("decisions").at("energy_optimal").at("label"), "f1.6");
  const json& w = e.at("decisions").at("within_slowdown");
  EXPECT_EQ(w.at("label"), "f2.8");
  EXPECT_DOUBLE_EQ(w.at("max_slowdown_pct").get<double>(), 10);
  const double truth_saving = 100 * (1 - (truth_power(2.8) + 10) * truth_time(2.8) / ((truth_power(3.2) + 10) * truth_time(3.2)));
  EXPECT_LE(w.at("energy_saving_low").get<double>(), truth_saving);
  EXPECT_GE(w.at("energy_saving_high").get<double>(), truth_saving);
  EXPECT_EQ(e.at("sentence"), w.at("sentence"));
  for (const char* k : {"edp", "ed2p"}) EXPECT_TRUE(e.at("decisions").at(k).at("verdict").is_string());
  EXPECT_EQ(e.at("power_model").at("terms")[0].at("name"), "static");
}

TEST_F(EnergyCli, PredictAddsCandidatesAndDecidesOverThem) {
  const std::string dir = records(true, false);
  ASSERT_EQ(run("fit " + dir + " --model cpu+fixed -o " + path("m.json")).exit_status, 0);
  const auto r = run("predict " + path("m.json") + " --cpu-ghz 1.4 --name slow --format json --max-slowdown 50%");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const json e = json::parse(r.out).at("energy");
  ASSERT_TRUE(e.at("available").get<bool>()) << e.dump();
  EXPECT_EQ(e.at("domains"), "package");
  EXPECT_EQ(e.at("points").size(), 7u);
  EXPECT_EQ(e.at("points")[6].at("source"), "predicted");
  EXPECT_EQ(e.at("points")[6].at("label"), "slow");
  EXPECT_DOUBLE_EQ(e.at("max_slowdown_pct").get<double>(), 50);
  const auto t = run("predict " + path("m.json") + " --cpu-ghz 1.4 --name slow");
  ASSERT_EQ(t.exit_status, 0) << t.err;
  EXPECT_NE(t.out.find("energy (package;"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("slow"), std::string::npos);
}

TEST_F(EnergyCli, BadMaxSlowdownExitsTwoNamingTheOption) {
  const std::string dir = records(true);
  ASSERT_EQ(run("fit " + dir + " --model cpu+fixed -o " + path("m.json")).exit_status, 0);
  for (const char* bad : {"-3%", "abc", "200", "nan"}) {
    for (const std::string& cmd : {"fit " + dir + " --model cpu+fixed", "predict " + path("m.json") + " --cpu-ghz 2"}) {
      const auto r = run(cmd + " --max-slowdown " + std::string(bad));
      EXPECT_EQ(r.exit_status, 2) << cmd << " " << bad << ": " << r.err;
      EXPECT_NE(r.err.find("--max-slowdown: must be a percentage from 0 to 100"), std::string::npos) << r.err;
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
    }
  }
}

TEST_F(EnergyCli, WithoutEnergyTheOutputSaysWhyInOneLine) {
  const std::string dir = records(false);
  const auto r = run("fit " + dir + " --model cpu+fixed -o " + path("m.json"));
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_NE(r.out.find("\nenergy: not available: no RAPL powercap zones under /sys/class/powercap (a virtual "
                       "machine, ...)\n"),
            std::string::npos)
      << r.out;
  std::ifstream in(path("m.json"));
  const json e = json::parse(in).at("energy");
  EXPECT_FALSE(e.at("available").get<bool>());
  EXPECT_EQ(e.size(), 2u) << "available and reason only: " << e.dump();
  const auto p = run("predict " + path("m.json") + " --cpu-ghz 2");
  EXPECT_EQ(p.exit_status, 0) << p.err;
  EXPECT_NE(p.out.find("energy: not available: no RAPL"), std::string::npos) << p.out;
}

}  // namespace
}  // namespace hpcsens::model
