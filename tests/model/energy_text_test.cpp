// What `hpcsens fit` says about energy, in words (issue 31): the points table's source column
// says what a configuration is (swept or a predicted candidate), emulated energy says it is
// emulated instead of what RAPL covers, and the answer names the clock as set (2.6 GHz), not the
// measured clock's scatter (2.60003 GHz). On sweeps against a power truth (tests/model/power_truth.h).
#include <gtest/gtest.h>

#include <regex>

#include <fmt/core.h>

#include "model/energy_json.h"
#include "model/energy_render.h"
#include "tests/model/power_truth.h"

namespace hpcsens::model {
namespace {

ModelReport swept(const std::string& source, double clock_scatter = 0) {
  power_truth::SweepOptions opt;
  opt.source = source, opt.clock_scatter = clock_scatter;
  return power_truth::fit(power_truth::sweep(power_truth::PowerTruth{}, 11, opt), 0.10);
}

TEST(EnergyText, TheSourceColumnSaysSweptNotMeasured) {
  const ModelReport rep = swept("emulated");
  ASSERT_TRUE(rep.energy.available) << rep.energy.reason;
  const std::string text = render_energy(rep.energy, false);
  EXPECT_EQ(text.find(" measured "), std::string::npos) << text;
  EXPECT_NE(text.find(fmt::format("  {:<14} {:<9}", "f1.0", "swept")), std::string::npos) << text;
  EXPECT_NE(text.find("source: swept = a configuration the sweep ran (energy and time EMULATED from the power truth, "
                      "not measured); predicted = a candidate"),
            std::string::npos) << text;
  for (const auto& p : energy_to_json(rep.energy)["points"]) EXPECT_EQ(p["source"], "swept");
}

TEST(EnergyText, EmulatedEnergyIsSaidToBeEmulatedNotWhatRaplCovers) {
  const ModelReport rep = swept("emulated");
  EXPECT_EQ(rep.energy.source, "emulated");
  for (bool md : {false, true}) {
    const std::string text = render_energy(rep.energy, md);
    EXPECT_EQ(text.find("RAPL"), std::string::npos) << text;
    EXPECT_NE(text.find("energy (package; EMULATED: package energy computed from the sweep spec's power truth "
                        "(emulated.power) and read back through the powercap reader, not measured)"),
              std::string::npos) << text;
  }
  // Measured energy keeps what RAPL covers.
  const ModelReport real = swept("powercap");
  EXPECT_NE(render_energy(real.energy, false).find("RAPL covers neither fans"), std::string::npos);
  EXPECT_NE(render_energy(real.energy, false).find("(energy and time measured)"), std::string::npos);
}

TEST(EnergyText, TheAnswerNamesTheClockAsSetNotItsScatter) {
  // Measured clocks scatter by ~20 ppm around the set ones, as the emulated launcher's do.
  const ModelReport rep = swept("emulated", 2e-5);
  ASSERT_TRUE(rep.energy.available);
  const EnergyReport& e = rep.energy;
  for (const EnergyDecision* d : {&e.energy_optimal, &e.within_slowdown, &e.edp, &e.ed2p}) {
    const std::string& label = e.points[d->point].cfg.label;  // "f1.6"
    EXPECT_NE(d->sentence.find(clock_words(std::stod(label.substr(1))) + " ('" + label + "')"), std::string::npos)
        << d->sentence;
    EXPECT_FALSE(std::regex_search(d->sentence, std::regex(R"(\d\.\d{3,} GHz)"))) << d->sentence;
  }
  EXPECT_NE(e.points[e.within_slowdown.point].cfg.cpu_ghz, std::stod(e.points[e.within_slowdown.point].cfg.label.substr(1)))
      << "the measured clock must differ from the set one for this test to mean anything";
}

TEST(EnergyText, ClockWordsRoundToTenMegahertz) {
  EXPECT_EQ(clock_words(2.60003), "2.6 GHz");
  EXPECT_EQ(clock_words(1.19996), "1.2 GHz");
  EXPECT_EQ(clock_words(3.00007), "3 GHz");
  EXPECT_EQ(clock_words(2.45), "2.45 GHz");
}

}  // namespace
}  // namespace hpcsens::model
