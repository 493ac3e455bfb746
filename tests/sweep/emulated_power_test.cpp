// The emulated launcher's power truth: the spec's `emulated.power` fields, the f x V(f)^2 law, and
// the energy an emulated run records, made by a private powercap tree that the real reader
// (energy::Session) reads: exact joules, counter wraps, and the label that says EMULATED.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "common/errors.h"
#include "energy/energy_totals.h"
#include "sweep/execute/emulated.h"
#include "sweep/execute/emulated_power.h"
#include "sweep/spec/spec.h"

namespace hpcsens::sweep {
namespace {

const char* kBase = "emulated: {W_cpu: 60, W_mem: 2000, T_io: 5, mem_gbs: 50, seed: 3,\n  power: ";

SweepSpec spec_with(const std::string& power) {
  return parse_spec_text(std::string(kBase) + power + "}\nknobs: {cpu_ghz: [1.2, 2.0, 3.0]}\n", "emu.yaml");
}

std::string power_error(const std::string& power) {
  try {
    spec_with(power);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(EmulatedPower, SpecFieldsParseAndTheCoreRangeDefaultsToTheGrid) {
  const SweepSpec s = spec_with("{static_w: 40, core: {dynamic_w: 120, v_min: 0.8}, uncore: {dynamic_w: 20, ghz: 2.2},"
                                " dram_w: 12, noise_pct: 1, max_energy_range_uj: 5000000}");
  const EmulatedPower& p = *s.emulation->power;
  EXPECT_EQ(p.static_w, 40);
  EXPECT_EQ(p.core.dynamic_w, 120);
  EXPECT_EQ(p.core.v_min, 0.8);
  EXPECT_EQ(p.core.v_max, 1.1);  // the documented default
  EXPECT_EQ(p.core.min_ghz, 1.2);
  EXPECT_EQ(p.core.max_ghz, 3.0);
  ASSERT_TRUE(p.uncore.has_value());
  EXPECT_EQ(p.uncore->min_ghz, 2.2);
  EXPECT_EQ(p.dram_w, 12);
  EXPECT_EQ(p.max_energy_range_uj, 5000000u);
}

TEST(EmulatedPower, BadFieldsNameFileLineAndField) {
  EXPECT_EQ(power_error("{core: {dynamic_w: 100}}"),
            "emu.yaml:2: emulated.power.static_w: missing (the node's power that does not depend on the clocks, in W)");
  EXPECT_EQ(power_error("{static_w: 40}"),
            "emu.yaml:2: emulated.power.core: missing (e.g. core: {dynamic_w: 120}, the cores' dynamic power at the top clock)");
  EXPECT_EQ(power_error("{static_w: -1, core: {dynamic_w: 100}}"),
            "emu.yaml:2: emulated.power.static_w: must be within [0, 100000] W, got -1");
  EXPECT_EQ(power_error("{static_w: 40, core: {dynamic_w: 100, v_min: 1.2, v_max: 1.0}}"),
            "emu.yaml:2: emulated.power.core.v_min: must not be above v_max (the voltage at the lowest clock is the lower one)");
  EXPECT_EQ(power_error("{static_w: 40, core: {dynamic_w: 100, volts: 1}}"),
            "emu.yaml:2: emulated.power.core.volts: unknown field (allowed: dynamic_w, max_ghz, min_ghz, v_max, v_min)");
  EXPECT_EQ(power_error("{static_w: 40, core: {dynamic_w: 100}, uncore: {dynamic_w: 10}}"),
            "emu.yaml:2: emulated.power.uncore.ghz: missing (the uncore's clock: the emulated launcher has no uncore knob)");
  EXPECT_EQ(power_error("{static_w: 40, core: {dynamic_w: 100}, max_energy_range_uj: 10}"),
            "emu.yaml:2: emulated.power.max_energy_range_uj: must be >= 1000000, got 10");
  EXPECT_EQ(power_error("{static_w: 40, core: {dynamic_w: 100, min_ghz: 4}}"),
            "emu.yaml:2: emulated.power.core.min_ghz: must not be above max_ghz (unset, they are the sweep's lowest "
            "and highest cpu_ghz)");
}

TEST(EmulatedPower, DynamicPowerGrowsLikeFTimesVSquared) {
  EmulatedClockPower c;
  c.dynamic_w = 100, c.min_ghz = 1.0, c.max_ghz = 3.0, c.v_min = 0.7, c.v_max = 1.1;
  EXPECT_DOUBLE_EQ(emulated_volts(c, 2.0), 0.9);
  EXPECT_DOUBLE_EQ(emulated_volts(c, 0.5), 0.7);  // the voltage floor
  EXPECT_DOUBLE_EQ(emulated_dynamic_w(c, 3.0), 100);
  EXPECT_DOUBLE_EQ(emulated_dynamic_w(c, 2.0), 100 * (2.0 / 3.0) * (0.9 / 1.1) * (0.9 / 1.1));
  EXPECT_DOUBLE_EQ(emulated_dynamic_w(c, 1.0), 100 * (1.0 / 3.0) * (0.7 / 1.1) * (0.7 / 1.1));
}

TEST(EmulatedPower, TheRecordCarriesTheTruthsEnergyReadThroughThePowercapReader) {
  const SweepSpec s = spec_with("{static_w: 40, core: {dynamic_w: 120}, uncore: {dynamic_w: 20, ghz: 2.2}, dram_w: 12}");
  const auto r = make_emulated_record(s, "p01-r0", 2.0, 50, nlohmann::json::object());
  const auto& e = r.extra.at("energy");
  const auto& truth = r.config["emulated_truth"]["power"]["run_w"];
  const double t = r.timing.job_s;
  const double core = 120 * (2.0 / 3.0) * std::pow((0.7 + 0.4 * 0.8 / 1.8) / 1.1, 2);
  EXPECT_NEAR(truth["core"].get<double>(), core, 1e-9);
  EXPECT_NEAR(truth["package"].get<double>(), 40 + core + 20, 1e-9);
  EXPECT_EQ(e["available"], true);
  EXPECT_EQ(e["source"], "emulated");
  ASSERT_EQ(e["nodes"].size(), 1u);
  const auto& node = e["nodes"][0];
  EXPECT_EQ(node["source"], "emulated");
  EXPECT_EQ(node["reader"], "powercap");
  EXPECT_DOUBLE_EQ(node["duration_s"].get<double>(), t);
  // Joules are P x t to the counter's microjoule.
  EXPECT_NEAR(node["joules_by_domain"]["package"].get<double>(), (40 + core + 20) * t, 1e-6);
  EXPECT_NEAR(node["joules_by_domain"]["core"].get<double>(), core * t, 1e-6);
  EXPECT_NEAR(node["joules_by_domain"]["uncore"].get<double>(), 20 * t, 1e-6);
  EXPECT_NEAR(node["joules_by_domain"]["dram"].get<double>(), 12 * t, 1e-6);
  EXPECT_FALSE(node.contains("note"));  // a DRAM zone was there
  const energy::Totals tot = energy::energy_totals(e);
  EXPECT_NEAR(tot.joules, (40 + core + 20 + 12) * t, 1e-5);
  EXPECT_NEAR(tot.mean_w, 40 + core + 20 + 12, 1e-6);
}

TEST(EmulatedPower, CountersThatWrapManyTimesStillGiveTheExactEnergy) {
  const SweepSpec s = spec_with("{static_w: 50, core: {dynamic_w: 150}, max_energy_range_uj: 50000000}");
  const auto r = make_emulated_record(s, "p02-r1", 3.0, 50, nlohmann::json::object());
  const auto& node = r.extra.at("energy")["nodes"][0];
  const double t = r.timing.job_s;  // about 60/3 + 2000/50 + 5 = 65 s at 200 W: 13 kJ on a 50 J counter
  EXPECT_NEAR(node["joules_by_domain"]["package"].get<double>(), 200 * t, 1e-5);
  int wraps = 0;
  for (const auto& d : node["domains"])
    if (d["domain"] == "package") wraps = d["wraps"];
  EXPECT_GE(wraps, static_cast<int>(200 * t / 50) - 1);  // one wrap per 50 J
  EXPECT_EQ(node["note"], "no DRAM zone (domains present: package, core); memory energy is not in these figures");
}

TEST(EmulatedPower, PowerScatterIsPerRunAndTheTruthSaysTheRunsWatts) {
  const SweepSpec s = spec_with("{static_w: 50, core: {dynamic_w: 150}, noise_pct: 2}");
  const auto a = make_emulated_record(s, "p00-r0", 3.0, 50, nlohmann::json::object());
  const auto b = make_emulated_record(s, "p00-r1", 3.0, 50, nlohmann::json::object());
  const double wa = a.config["emulated_truth"]["power"]["run_w"]["package"], wb = b.config["emulated_truth"]["power"]["run_w"]["package"];
  EXPECT_NE(wa, wb);
  EXPECT_NEAR(wa, 200, 200 * 0.1);
  EXPECT_NEAR(a.extra["energy"]["nodes"][0]["joules_by_domain"]["package"].get<double>(), wa * a.timing.job_s, 1e-5);
}

TEST(EmulatedPower, WithoutAPowerTruthTheRecordSaysEnergyIsNotAvailable) {
  const SweepSpec s = parse_spec_text("emulated: {W_cpu: 60, W_mem: 2000, T_io: 5, mem_gbs: 50}\nknobs: {cpu_ghz: [1, 2]}\n", "e.yaml");
  const auto r = make_emulated_record(s, "p00-r0", 2.0, 50, nlohmann::json::object());
  EXPECT_EQ(r.extra.at("energy")["available"], false);
  EXPECT_EQ(r.extra.at("energy")["reason"],
            "not available: emulated run without a power truth (give emulated.power in the spec)");
}

TEST(EnergyTotals, HostsWithoutAReaderAreNamedPerNodeAndLeftOutOfTheSum) {
  nlohmann::json section = {{"available", true}, {"source", "powercap"},
                            {"nodes", {{{"host", "n1"}, {"available", true}, {"duration_s", 10.0},
                                        {"joules_by_domain", {{"package", 900.0}, {"core", 500.0}, {"dram", 100.0}}}}}}};
  energy::mark_unmeasured_hosts(section, {"n1", "n2", "n3"});
  ASSERT_EQ(section["nodes"].size(), 3u);
  EXPECT_EQ(section["nodes"][1]["host"], "n2");
  EXPECT_EQ(section["nodes"][1]["available"], false);
  EXPECT_EQ(section["nodes"][1]["reason"], "not measured: node n2 ran no reader (no counter agent of its ranks handed "
                                           "over the node's energy: --events none, or the agent did not start or "
                                           "answer); its energy is not in these figures");
  energy::mark_unmeasured_hosts(section, {"n1", "n2", "n3"});  // twice: no second entry
  EXPECT_EQ(section["nodes"].size(), 3u);
  const energy::Totals t = energy::energy_totals(section);
  EXPECT_TRUE(t.available);
  EXPECT_DOUBLE_EQ(t.joules, 1000);  // package + dram; core is inside package
  EXPECT_DOUBLE_EQ(t.mean_w, 100);
  EXPECT_EQ(t.nodes_measured, 1);
  EXPECT_EQ(t.not_measured, (std::vector<std::string>{"n2", "n3"}));
  EXPECT_FALSE(energy::energy_totals(nlohmann::json("junk")).available);
}

}  // namespace
}  // namespace hpcsens::sweep
