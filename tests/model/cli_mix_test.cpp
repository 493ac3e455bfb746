// `hpcsens predict --mix` through the real binary: workload speed-up as the weighted harmonic
// mean (checked against numbers computed here), throughput per price and per watt, ranking
// across intervals, verdicts and EMULATED carried through, and bad mix files refused.
#include <gtest/gtest.h>

#include <cmath>

#include <nlohmann/json.hpp>

#include "model/mix.h"
#include "tests/model/cli_fixture.h"

namespace hpcsens::model {
namespace {

class MixCli : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    // Two applications: a clock-bound one (core-only sweep) and a two-rate one.
    std::string core = "label,cpu_ghz,mem_gbs,time_s\n";
    for (double f : {1.2, 1.6, 2.0, 2.4, 2.8})
      for (int r = 0; r < 2; ++r)
        core += "f" + std::to_string(f) + "," + std::to_string(f) + ",100," + std::to_string((24 / f + 2) * (1 + 0.002 * r)) + "\n";
    ASSERT_EQ(run("fit " + file("core.csv", core) + " -o " + path("core.model.json")).exit_status, 0);
    ASSERT_EQ(run("fit " + good_csv({24.0, 600.0, 2.0}) + " --model cpu+mem+io -o " + path("two.model.json")).exit_status,
              0);
    file("mix.yaml",
         "applications:\n"
         "  - {name: core, model: core.model.json, weight: 0.4}\n"
         "  - {name: two, model: two.model.json, weight: 0.6}\n"
         "baseline_nodes: 10\n");
    file("systems.yaml",
         "systems:\n"
         "  - {name: fast, cpu_ghz: 3.0, mem_gbs: 40, nodes: 12, price: 2.0, power_w: 6000}\n"
         "  - {name: slow, cpu_ghz: 2.0, mem_gbs: 25, nodes: 20, price: 1.5, power_w: 9000}\n"
         "  - {name: newcpu, cpu_ghz: 3.0, mem_gbs: 40, cpu_work_factor: 0.8}\n");
  }
};

TEST_F(MixCli, WorkloadSpeedupIsTheWeightedHarmonicMean) {
  const auto r = run("predict --mix " + path("mix.yaml") + " --system " + path("systems.yaml") + " --format json");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema"], "hpcsens.mix.v1");
  ASSERT_EQ(j["systems"].size(), 3u);
  for (const auto& s : j["systems"]) {
    double sum = 0;
    for (const auto& a : s["applications"]) {
      const double w = a["name"] == "core" ? 0.4 : 0.6;
      sum += w / a["speedup"].get<double>();
      EXPECT_TRUE(a["predicted_s"].is_number());
      EXPECT_TRUE(a["verdict"].is_string());
    }
    EXPECT_NEAR(s["speedup"].get<double>(), 1 / sum, 1e-12) << s["name"];
    EXPECT_LE(s["speedup_low"].get<double>(), s["speedup"].get<double>());
    EXPECT_GE(s["speedup_high"].get<double>(), s["speedup"].get<double>());
  }
  // Ranked best first; the work factor 0.8 makes newcpu faster than fast at the same rates.
  EXPECT_EQ(j["systems"][0]["name"], "newcpu");
  const auto& fast = j["systems"][1];
  EXPECT_EQ(fast["name"], "fast");
  EXPECT_NEAR(fast["throughput"].get<double>(), fast["speedup"].get<double>() * 12 / 10, 1e-12);
  EXPECT_NEAR(fast["per_price"].get<double>(), fast["throughput"].get<double>() / 2.0, 1e-12);
  EXPECT_NEAR(fast["per_watt"].get<double>(), fast["throughput"].get<double>() / 6000, 1e-15);
  EXPECT_FALSE(j["systems"][0].contains("throughput"));  // no nodes given
  EXPECT_NE(j["assumption"].get<std::string>().find("same microarchitecture"), std::string::npos);
  EXPECT_TRUE(j["ranking_holds"].is_boolean());
}

TEST_F(MixCli, TableAndCsvSayTheAssumptionAndTheRanking) {
  const auto t = run("predict --mix " + path("mix.yaml") + " --system " + path("systems.yaml"));
  ASSERT_EQ(t.exit_status, 0) << t.err;
  EXPECT_NE(t.out.find("assumption: a candidate runs the same cycles"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("weighted harmonic mean"), std::string::npos);
  EXPECT_NE(t.out.find("the ranking"), std::string::npos);
  const auto c = run("predict --mix " + path("mix.yaml") + " --system " + path("systems.yaml") + " --format csv");
  ASSERT_EQ(c.exit_status, 0) << c.err;
  EXPECT_EQ(c.out.rfind("system,rank,application,weight,predicted_s", 0), 0u) << c.out;
  EXPECT_EQ(std::count(c.out.begin(), c.out.end(), '\n'), 1 + 3 * 3);  // header + (2 apps + workload) x 3
  EXPECT_NE(c.out.find("(workload)"), std::string::npos);
}

TEST_F(MixCli, BadMixFilesExitTwoNamingFileLineAndField) {
  struct Case {
    std::string text, expect;
  } cases[] = {
      {"applications:\n  - {name: a, model: core.model.json, weight: -1}\n", ":2: field 'weight'"},
      {"applications:\n  - {name: a, model: core.model.json, weight: .nan}\n", ":2: field 'weight'"},
      {"applications:\n  - {name: a, model: core.model.json, weight: 1e999}\n", ":2: field 'weight'"},
      {"applications:\n  - {name: a, model: missing.json, weight: 1}\n", ":2: field 'model': "},
      {"applications:\n  - {name: a, model: core.model.json}\n", ":2: field 'weight': missing"},
      {"applications:\n  - {name: a, model: core.model.json, weight: 1}\n  - {name: a, model: two.model.json, weight: 1}\n",
       ":3: field 'name': duplicate application name 'a'"},
      {"applications:\n  - {name: a, model: core.model.json, weight: 1, colour: red}\n", ":2: field 'colour': unknown"},
      {"? [a]\n: 1\n", ":1: a field name must be a plain word"},
      {"applications: []\n", ":1: field 'applications'"},
      {"applications: [\n", ":2: not valid YAML"},
  };
  int i = 0;
  for (const auto& c : cases) {
    const std::string f = file("bad" + std::to_string(i++) + ".yaml", c.text);
    const auto r = run("predict --mix " + f + " --system " + path("systems.yaml"));
    EXPECT_EQ(r.exit_status, 2) << c.text << r.err;
    EXPECT_NE(r.err.find(f + c.expect), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  const auto zero = run("predict --mix /dev/zero --system " + path("systems.yaml"));
  EXPECT_EQ(zero.exit_status, 2);
  EXPECT_NE(zero.err.find("/dev/zero: "), std::string::npos) << zero.err;
  EXPECT_NE(zero.err.find("not a regular file"), std::string::npos) << zero.err;
  EXPECT_EQ(run("predict --mix " + path("mix.yaml")).exit_status, 2);  // no systems
  EXPECT_EQ(run("predict " + path("core.model.json") + " --mix " + path("mix.yaml") + " --system " +
                path("systems.yaml")).exit_status, 2);
}

TEST_F(MixCli, EmulatedModelMarksTheMix) {
  std::string text = "label,cpu_ghz,mem_gbs,time_s,emulated\n";
  for (const auto& p : testing::generate_points({24.0, 600.0, 2.0}, testing::acceptance_grid(), {0.01, 5, 1}))
    text += p.label + "," + std::to_string(p.cpu_ghz) + "," + std::to_string(p.mem_gbs) + "," +
            std::to_string(p.time_s) + ",true\n";
  ASSERT_EQ(run("fit " + file("emu.csv", text) + " -o " + path("emu.model.json")).exit_status, 0);
  file("emix.yaml", "applications:\n  - {name: emu, model: emu.model.json, weight: 1}\n"
                    "  - {name: core, model: core.model.json, weight: 1}\n");
  const auto t = run("predict --mix " + path("emix.yaml") + " --system " + path("systems.yaml"));
  ASSERT_EQ(t.exit_status, 0) << t.err;
  EXPECT_EQ(t.out.rfind("EMULATED", 0), 0u) << t.out;
  const auto j = run("predict --mix " + path("emix.yaml") + " --system " + path("systems.yaml") + " --format json");
  EXPECT_TRUE(nlohmann::json::parse(j.out)["emulated"].get<bool>());
  const auto c = run("predict --mix " + path("emix.yaml") + " --system " + path("systems.yaml") + " --format csv");
  EXPECT_NE(c.out.find(",true\n"), std::string::npos) << c.out;
}

TEST(MixMath, HarmonicMeanOfSpeedups) {
  EXPECT_DOUBLE_EQ(workload_speedup({0.5, 0.5}, {2.0, 2.0}), 2.0);
  // Half the node-hours twice as fast, half unchanged: 1 / (0.25 + 0.5).
  EXPECT_DOUBLE_EQ(workload_speedup({0.5, 0.5}, {2.0, 1.0}), 1 / 0.75);
  EXPECT_TRUE(std::isinf(workload_speedup({1.0}, {INFINITY})));
}

// System and application names with an escape sequence and a bell (YAML "\e", "\a") and a CSV
// label with one: nothing printed to the terminal carries the raw control bytes (issue 22).
TEST_F(MixCli, ControlBytesInNamesNeverReachTheTerminalRaw) {
  file("evil.yaml", "systems:\n  - {name: \"sys\\e[31mred\\a\", cpu_ghz: 3.0, mem_gbs: 40}\n");
  file("evilmix.yaml", "applications:\n  - {name: \"app\\e]0;title\\a\", model: core.model.json, weight: 1}\n");
  for (const char* format : {"table", "csv"}) {
    const auto r = run("predict --mix " + path("evilmix.yaml") + " --system " + path("evil.yaml") + " --format " + format);
    ASSERT_EQ(r.exit_status, 0) << r.err;
    EXPECT_NE(r.out.find("sys\\x1b[31mred\\x07"), std::string::npos) << r.out;
    for (const auto& text : {r.out, r.err}) {
      EXPECT_EQ(text.find('\x1b'), std::string::npos) << format << ": " << text;
      EXPECT_EQ(text.find('\x07'), std::string::npos) << format << ": " << text;
    }
  }
  const auto p = run("predict " + path("core.model.json") + " --system " + path("evil.yaml"));
  ASSERT_EQ(p.exit_status, 0) << p.err;
  EXPECT_EQ(p.out.find('\x1b'), std::string::npos) << p.out;
  std::string csv = "label,cpu_ghz,mem_gbs,time_s\n";
  for (double f : {1.2, 1.6, 2.0, 2.4, 2.8}) csv += "x\x1b[2J" + std::to_string(f) + "," + std::to_string(f) + ",100," + std::to_string(24 / f + 2) + "\n";
  const auto fit = run("fit " + file("evil.csv", csv) + " --format csv --table points");
  EXPECT_EQ(fit.out.find('\x1b'), std::string::npos) << fit.out << fit.err;
}

}  // namespace
}  // namespace hpcsens::model
