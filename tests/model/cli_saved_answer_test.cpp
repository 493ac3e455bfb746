// `hpcsens report` of a saved prediction or mix (issue 29): `predict ... --format json -o p.json`
// then `report p.json --format F` prints exactly what `predict ... --format F` printed (text, md,
// csv; json: the file itself), the answer read back, never recomputed; damaged files exit 2
// naming the file and the field.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <iterator>
#include <tuple>

#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include "tests/model/cli_fixture.h"

namespace hpcsens::model {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), {}};
}

class SavedAnswer : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    // Measured 1-3 GHz and 20-80 GB/s: 'far' lies 4x beyond the bandwidths (unreliable, extrapolated).
    ASSERT_EQ(run("fit " + good_csv({24.0, 600.0, 2.0}) + " --model cpu+mem+io -o " + path("m.model.json")).exit_status,
              0);
    file("systems.yaml",
         "systems:\n"
         "  - {name: same, cpu_ghz: 2.0, mem_gbs: 40, nodes: 10, price: 2.0, power_w: 6000}\n"
         "  - {name: far, cpu_ghz: 2.0, mem_gbs: 320, nodes: 8, price: 3.0, power_w: 7000}\n");
    predict_ = "predict " + path("m.model.json") + " --system " + path("systems.yaml");
    file("mix.yaml",
         "applications:\n"
         "  - {name: a, model: m.model.json, weight: 0.7}\n"
         "  - {name: b, model: m.model.json, weight: 0.3}\n"
         "baseline_nodes: 10\n");
    mix_ = "predict --mix " + path("mix.yaml") + " --system " + path("systems.yaml");
  }

  // Every format of `report saved` equals `command --format` of the same input.
  void expect_round_trip(const std::string& command, const std::string& saved) {
    ASSERT_EQ(run(command + " --format json -o " + saved).exit_status, 0);
    for (const std::string f : {"text", "md", "csv"}) {
      const auto direct = run(command + " --format " + f);
      const auto back = run("report " + saved + " --format " + f);
      ASSERT_EQ(direct.exit_status, 0) << direct.err;
      ASSERT_EQ(back.exit_status, 0) << back.err;
      EXPECT_EQ(back.out, direct.out) << f;
    }
    const auto json = run("report " + saved + " --format json");
    ASSERT_EQ(json.exit_status, 0) << json.err;
    EXPECT_EQ(json.out, slurp(saved));
    // --summary: the answer that opens the text, alone.
    const auto summary = run("report " + saved + " --summary");
    const auto text = run(command);
    ASSERT_EQ(summary.exit_status, 0) << summary.err;
    EXPECT_FALSE(summary.out.empty());
    EXPECT_NE(text.out.find(summary.out), std::string::npos) << summary.out;
  }

  // Writes `saved` with `edit` applied to its JSON; report must exit 2 naming the file and `field`.
  void expect_refused(const std::string& saved, const std::function<void(nlohmann::json&)>& edit,
                      const std::string& field) {
    auto j = nlohmann::json::parse(slurp(saved));
    edit(j);
    const std::string bad = file("bad.json", j.dump(1));
    for (const std::string f : {"text", "md", "json", "csv"}) {
      const auto r = run("report " + bad + " --format " + f);
      EXPECT_EQ(r.exit_status, 2) << f << ": " << r.out;
      EXPECT_NE(r.err.find("bad.json"), std::string::npos) << r.err;
      EXPECT_NE(r.err.find("'" + field + "'"), std::string::npos) << r.err;
    }
  }

  void energy_models();  // x.model.json, y.model.json: CSV sweeps with energy against a truth

  std::string predict_, mix_;
};

TEST_F(SavedAnswer, PredictionReadBackPrintsWhatPredictPrinted) {
  expect_round_trip(predict_, path("p.json"));
  // The extrapolated winner's caution travels with it: the text has it because the file has it.
  const auto text = run("report " + path("p.json"));
  EXPECT_NE(text.out.find("EXTRAPOLATED"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("far"), std::string::npos);
}

TEST_F(SavedAnswer, MixReadBackPrintsWhatPredictPrinted) {
  expect_round_trip(mix_, path("mix.json"));
  EXPECT_NE(run("report " + path("mix.json")).out.find("rests on extrapolated predictions"), std::string::npos);
}

// Two applications whose sweeps carry energy (a CSV's energy_j; truth P = s + c f^3, T = W / f + t):
// per watt and energy come from their power models, and every format reads back byte for byte.
void SavedAnswer::energy_models() {
  for (const auto& [name, s, c, w, t] : {std::tuple{"x", 60.0, 4.0, 40.0, 20.0}, std::tuple{"y", 40.0, 7.0, 90.0, 4.0}}) {
    std::string csv = "label,cpu_ghz,mem_gbs,time_s,energy_j\n";
    for (double f : {1.2, 1.6, 2.0, 2.4, 2.8, 3.2})
      for (int r = 0; r < 2; ++r) {
        const double time = (w / f + t) * (r ? 1.003 : 0.997), power = (s + c * f * f * f) * (r ? 0.998 : 1.002);
        csv += fmt::format("f{},{},100,{},{}\n", f, f, time, power * time);
      }
    ASSERT_EQ(run(fmt::format("fit {} --model cpu+fixed -o {}", file(std::string(name) + ".csv", csv),
                              path(std::string(name) + ".model.json"))).exit_status, 0);
  }
}

// A prediction from a model with energy: its energy section (candidates, decisions, sentence)
// reads back as predict printed it (a saved prediction used to lose the points and crash).
TEST_F(SavedAnswer, PredictionWithEnergyReadsBack) {
  ASSERT_NO_FATAL_FAILURE(energy_models());
  file("csys.yaml", "systems:\n  - {name: slow, cpu_ghz: 1.4}\n  - {name: mid, cpu_ghz: 2.2}\n");
  expect_round_trip("predict " + path("x.model.json") + " --system " + path("csys.yaml"), path("xp.json"));
  const auto text = run("report " + path("xp.json"));
  EXPECT_NE(text.out.find("  slow           predicted"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("energy optimum: 'f1.6'"), std::string::npos) << text.out;  // the truth's least energy
  using J = nlohmann::json;
  expect_refused(path("xp.json"), [](J& x) { x["energy"]["decisions"]["edp"]["label"] = "nowhere"; },
                 "energy.decisions.edp.label");
  expect_refused(path("xp.json"), [](J& x) { x["energy"]["points"][2].erase("model_energy_j"); },
                 "energy.points[2].model_energy_j");
}

TEST_F(SavedAnswer, MixWithMeasuredPowerReadsBackAndDamageIsNamed) {
  ASSERT_NO_FATAL_FAILURE(energy_models());
  file("emix.yaml", "applications:\n  - {name: x, model: x.model.json, weight: 0.5}\n"
                    "  - {name: y, model: y.model.json, weight: 0.5}\nbaseline_nodes: 4\n");
  file("esys.yaml", "systems:\n  - {name: low, cpu_ghz: 1.6, nodes: 4, power_w: 900}\n"
                    "  - {name: high, cpu_ghz: 3.0, nodes: 4, power_w: 100}\n");
  const std::string cmd = "predict --mix " + path("emix.yaml") + " --system " + path("esys.yaml") + " --rank-by per-watt";
  expect_round_trip(cmd, path("emix.json"));
  const auto text = run("report " + path("emix.json"));
  EXPECT_NE(text.out.find("power basis: measured power model: "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find(" J per job"), std::string::npos) << text.out;
  const auto j = nlohmann::json::parse(slurp(path("emix.json")));
  // The truth's energy per job at 1.6 GHz is less than at 3.0 (the nominal power_w says the opposite).
  EXPECT_EQ(j["systems"][0]["name"], "low") << j.dump(1);
  // The page carries the label and the values too (its tables are built from this JSON).
  const auto page = run("report " + path("emix.json") + " --format html");
  ASSERT_EQ(page.exit_status, 0) << page.err;
  EXPECT_NE(page.out.find("Power basis: measured power model: per watt and energy from the applications"),
            std::string::npos);
  EXPECT_NE(page.out.find("energy per job [J]"), std::string::npos);
  EXPECT_NE(page.out.find(fmt::format("{:.5g}", j["systems"][0]["applications"][0]["energy_j"].get<double>())),
            std::string::npos);
  using J = nlohmann::json;
  expect_refused(path("emix.json"), [](J& x) { x["power_basis"] = "guessed"; }, "power_basis");
  expect_refused(path("emix.json"), [](J& x) { x["systems"][0]["applications"][1]["energy_j"] = "many"; },
                 "systems[0].applications[1].energy_j");
  expect_refused(path("emix.json"), [](J& x) { x["systems"][1]["node_power_w"] = true; }, "systems[1].node_power_w");
}

TEST_F(SavedAnswer, TheAnswerIsTheFilesNotRecomputed) {
  ASSERT_EQ(run(predict_ + " --format json -o " + path("p.json")).exit_status, 0);
  auto j = nlohmann::json::parse(slurp(path("p.json")));
  j["answer"]["headline"] = "headline as written in the file";
  const std::string edited = file("edited.json", j.dump(2));
  const auto r = run("report " + edited);
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_NE(r.out.find("Answer: headline as written in the file"), std::string::npos) << r.out;
}

TEST_F(SavedAnswer, DamagedPredictionsExitTwoNamingFileAndField) {
  const std::string p = path("p.json");
  ASSERT_EQ(run(predict_ + " --format json -o " + p).exit_status, 0);
  using J = nlohmann::json;
  expect_refused(p, [](J& j) { j["predictions"][1].erase("fit_low_s"); }, "predictions[1].fit_low_s");
  expect_refused(p, [](J& j) { j["predictions"][0]["speedup"] = "fast"; }, "predictions[0].speedup");
  expect_refused(p, [](J& j) { j["predictions"][0]["verdict"] = "great"; }, "predictions[0].verdict");
  expect_refused(p, [](J& j) { j["predictions"][0]["rates"][0]["given"] = 1; }, "predictions[0].rates[0].given");
  expect_refused(p, [](J& j) { j["answer"].erase("headline"); }, "answer.headline");
  expect_refused(p, [](J& j) { j["baseline"] = 3; }, "baseline");
  expect_refused(p, [](J& j) { j["model"] = "cpu+gpu"; }, "model");
  // Truncated: the JSON parser names the file and where it stopped.
  const std::string text = slurp(p);
  const std::string cut = file("cut.json", text.substr(0, text.size() / 2));
  const auto r = run("report " + cut + " --format text");
  EXPECT_EQ(r.exit_status, 2);
  EXPECT_NE(r.err.find("cut.json"), std::string::npos) << r.err;
}

TEST_F(SavedAnswer, DamagedMixesExitTwoNamingFileAndField) {
  const std::string m = path("mix.json");
  ASSERT_EQ(run(mix_ + " --format json -o " + m).exit_status, 0);
  using J = nlohmann::json;
  expect_refused(m, [](J& j) { j["systems"][1]["applications"][0].erase("verdict"); },
                 "systems[1].applications[0].verdict");
  expect_refused(m, [](J& j) { j["rank_by"] = "cheapest"; }, "rank_by");
  expect_refused(m, [](J& j) { j["applications"] = J::object(); }, "applications");
  expect_refused(m, [](J& j) { j["answer"]["advice"][0] = "do it"; }, "answer.advice[0]");
}

}  // namespace
}  // namespace hpcsens::model
