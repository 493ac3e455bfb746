// The baseline by setting (issue 30 item 4): chosen from the knobs' set values, never from measured
// jitter; the user's --baseline wins; the output says which and why.
#include <gtest/gtest.h>

#include "common/errors.h"
#include "model/analysis.h"
#include "model/baseline.h"
#include "model/knob_design.h"
#include "model/model_json.h"

namespace hpcsens::model {
namespace {

// Clocks set to 2.0, 2.5 and 3.0 GHz x 80 and 160 GB/s; at 3 GHz the 80 GB/s point measured its
// clock 0.19 % higher than the 160 GB/s one (the calibrator's jitter).
std::vector<Point> jittered_grid(bool with_knobs) {
  std::vector<Point> pts;
  int i = 0;
  for (double f : {2.0, 2.5, 3.0})
    for (double m : {80.0, 160.0}) {
      Point p;
      p.label = "f" + std::to_string(static_cast<int>(f * 10)) + "-m" + std::to_string(static_cast<int>(m));
      p.cpu_ghz = f * (f == 3.0 && m == 80.0 ? 1.0019 : 1.0);
      p.mem_gbs = m * (1 + 0.004 * (i % 3));
      p.time_s = 24 / p.cpu_ghz + 300 / p.mem_gbs + 1;
      if (with_knobs)
        p.knobs = knob_setting_of({{"sweep_point", i}, {"cpu_ghz_requested", f}, {"memory_config", m == 80 ? "half" : "full"}});
      ++i;
      pts.push_back(p);
    }
  return pts;
}

TEST(Baseline, IsTheTopSetClockAndBandwidthNotTheClockJitter) {
  for (bool knobs : {false, true}) {
    const auto pts = jittered_grid(knobs);
    const BaselineChoice b = choose_baseline(pts);
    EXPECT_EQ(pts[b.index].label, "f30-m160") << (knobs ? "records" : "csv") << ": " << b.reason;
    EXPECT_NE(b.reason.find("core clock"), std::string::npos) << b.reason;
    EXPECT_NE(b.reason.find("memory bandwidth"), std::string::npos) << b.reason;
    EXPECT_NE(b.reason.find(knobs ? "the sweep's knobs set" : "jitter, not a different setting"), std::string::npos)
        << b.reason;
    EXPECT_EQ(pts[pick_baseline(pts)].label, "f30-m160");
  }
}

TEST(Baseline, TheModelSaysWhichBaselineAndWhy) {
  Dataset d;
  d.points = jittered_grid(false);
  const ModelReport m = analyze(d, {});
  EXPECT_EQ(m.points[m.baseline].label, "f30-m160");
  const auto j = to_json(m);
  EXPECT_NE(j.at("baseline").at("reason").get<std::string>().find("highest core clock"), std::string::npos);
  // The saved model keeps the same baseline.
  EXPECT_EQ(model_from_json(j, "m.json").baseline, m.baseline);
}

TEST(Baseline, TheUsersChoiceWinsAndAnUnknownLabelIsRefusedWithTheLabels) {
  Dataset d;
  d.points = jittered_grid(false);
  AnalyzeOptions o;
  o.baseline = "f25-m80";
  const ModelReport m = analyze(d, o);
  EXPECT_EQ(m.points[m.baseline].label, "f25-m80");
  EXPECT_NE(m.baseline_reason.find("--baseline"), std::string::npos);
  o.baseline = "nope";
  try {
    analyze(d, o);
    FAIL() << "an unknown --baseline was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("f30-m160"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'nope'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace hpcsens::model
