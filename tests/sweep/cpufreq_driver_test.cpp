// The cpufreq backend's choices on the kernel model: "all" stops at the base clock unless turbo
// is asked for, values above base are refused with turbo off and flagged with it on, a value off
// the table is run where the driver puts it (recorded as set) or refused, and a hidden max
// request behind no_turbo is saved as the request the driver boots with.
#include <gtest/gtest.h>

#include "common/errors.h"
#include "fake_sysfs.h"
#include "kernel_model.h"
#include "model_node.h"
#include "sweep/knobs/cpufreq_sysfs.h"
#include "sweep/knobs/knobs.h"
#include "sweep/spec/spec.h"

namespace hpcsens::sweep::testing {
namespace {

using Node = ModelNode;

TEST(CpufreqDriver, AllStopsAtTheBaseClockUnlessTurboIsAskedFor) {
  Node n("acpi_cpufreq");
  EXPECT_EQ(KnobSet(n.spec("{cpu_ghz: all}"), n.io).cpu_values(), (std::vector<double>{1.2, 1.6, 2.0, 2.2, 2.4}));
  EXPECT_EQ(KnobSet(n.spec("{cpu_ghz: all, turbo: on}"), n.io).cpu_values(),
            (std::vector<double>{1.2, 1.6, 2.0, 2.2, 2.4, 2.8}));
  Node i("intel_pstate_hwp");
  const auto v = KnobSet(i.spec("{cpu_ghz: all}"), i.io).cpu_values();
  ASSERT_FALSE(v.empty());
  EXPECT_DOUBLE_EQ(v.front(), 0.8);
  EXPECT_DOUBLE_EQ(v.back(), 2.4);
}

TEST(CpufreqDriver, AboveBaseIsRefusedWithTurboOffAndFlaggedWithItOn) {
  Node n("intel_pstate_hwp");
  EXPECT_NE(n.error("{cpu_ghz: [3.0]}").find("s.yaml:2: knobs.cpu_ghz: 3 GHz is above the base clock 2.4 GHz"),
            std::string::npos) << n.error("{cpu_ghz: [3.0]}");
  const KnobSet k(n.spec("{cpu_ghz: [3.0, 2.0], turbo: on}"), n.io);
  Point p;
  p.cpu_ghz = 3.0;
  EXPECT_EQ(k.set_values(p)["cpu_above_base"], true);
  p.cpu_ghz = 2.0;
  EXPECT_EQ(k.set_values(p)["cpu_above_base"], false);
}

TEST(CpufreqDriver, AValueOffTheTableIsSetWhereTheDriverPutsItOrRefused) {
  Node n("acpi_cpufreq");
  const KnobSet k(n.spec("{cpu_ghz: [2.1]}"), n.io);
  Point p;
  p.cpu_ghz = 2.1;
  EXPECT_EQ(k.set_values(p)["cpu_ghz_set"], 2.2);
  EXPECT_NE(n.error("{cpu_ghz: [2.1], cpu_rounding: refuse}").find("2.1 GHz is not a clock acpi-cpufreq runs; it would "
                                                                   "run at 2.2 GHz"), std::string::npos);
  EXPECT_EQ(n.error("{cpu_ghz: [2.2], cpu_rounding: refuse}"), "");
}

TEST(CpufreqDriver, TheMaxSavedBehindNoTurboIsTheRequestTheDriverBootsWith) {
  Node n("intel_pstate_hwp_no_turbo_tpmi");
  EXPECT_EQ(get(policy_dir(n.root, 0) + "/scaling_max_freq"), "2400000");  // shown clamped
  const KnobSet k(n.spec("{cpu_ghz: [2.0]}"), n.io);
  for (const auto& f : k.save(n.io)) {
    if (f.path.find("scaling_max_freq") != std::string::npos) {
      EXPECT_EQ(f.value, "3500000") << f.path;
    }
  }
}

TEST(CpufreqDriver, BaseFromIntelTurboPctInvertsTheDriversFormula) {
  // show_turbo_pct: 100 - floor(100 * non_turbo / total); 28 P-states, 17 of them non-turbo.
  EXPECT_EQ(intel_base_from_turbo_pct(800000, 28, 40), 2400000);
  EXPECT_EQ(intel_base_from_turbo_pct(1000000, 10, 0), 1900000);  // no turbo range
  EXPECT_FALSE(intel_base_from_turbo_pct(800000, 28, 101));
}

}  // namespace
}  // namespace hpcsens::sweep::testing
