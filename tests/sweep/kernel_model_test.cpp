// The kernel model refuses, clamps and rounds as the drivers do: a double that accepted every
// write would let the lifecycle test pass for a sweep that sets the wrong clock.
#include <gtest/gtest.h>

#include "fake_sysfs.h"
#include "kernel_model.h"
#include "sweep/knobs/cpufreq_sysfs.h"

namespace hpcsens::sweep::testing {
namespace {

KernelLayout layout(const std::string& name) {
  for (const auto& l : all_layouts())
    if (l.name == name) return l;
  throw std::runtime_error("no layout " + name);
}

struct Model {
  TempDir t;
  std::string root = t.path() + "/sys";
  KernelModel io;
  explicit Model(const std::string& name) { build_layout(root, layout(name)); }
  std::string pol(int n, const std::string& f) const { return policy_dir(root, n) + "/" + f; }
  std::string cpu(const std::string& f) const { return root + "/devices/system/cpu/" + f; }
};

TEST(KernelModel, AcpiCpufreqRefusesSetspeedOutsideUserspaceAndRoundsUpToTheTable) {
  Model m("acpi_cpufreq");
  EXPECT_EQ(m.io.read(m.pol(0, "scaling_setspeed")).value_or(""), "<unsupported>");
  EXPECT_THROW(m.io.write(m.pol(0, "scaling_setspeed"), "2000000"), std::runtime_error);
  EXPECT_THROW(m.io.write(m.pol(0, "scaling_governor"), "turbo"), std::runtime_error);
  m.io.write(m.pol(0, "scaling_governor"), "userspace");
  m.io.write(m.pol(0, "scaling_setspeed"), "2100000");
  EXPECT_EQ(get(m.pol(0, "scaling_cur_freq")), "2200000");  // CPUFREQ_RELATION_L
  EXPECT_EQ(get(m.pol(0, "scaling_setspeed")), "2200000");  // shows policy->cur
  m.io.write(m.pol(0, "scaling_max_freq"), "2100000");      // resolved down to 2.0
  EXPECT_EQ(get(m.pol(0, "scaling_max_freq")), "2000000");
  EXPECT_EQ(get(m.pol(0, "scaling_cur_freq")), "2000000");
  EXPECT_THROW(m.io.write(m.pol(0, "scaling_min_freq"), "2400000"), std::runtime_error);  // above max
  EXPECT_THROW(m.io.write(m.pol(0, "cpuinfo_max_freq"), "2400000"), std::runtime_error);  // read-only
  EXPECT_THROW(m.io.write(m.pol(0, "no_such_file"), "1"), std::runtime_error);
}

TEST(KernelModel, NoTurboClampsTheMaxSilentlyAndKeepsTheRequestBehindIt) {
  Model m("intel_pstate_hwp");
  m.io.write(m.cpu("intel_pstate/no_turbo"), "1");
  EXPECT_EQ(get(m.pol(0, "scaling_max_freq")), "2400000");
  m.io.write(m.pol(0, "scaling_max_freq"), "3000000");  // accepted, shown clamped
  EXPECT_EQ(get(m.pol(0, "scaling_max_freq")), "2400000");
  EXPECT_EQ(get(m.pol(0, "scaling_cur_freq")), "2400000");
  m.io.write(m.cpu("intel_pstate/no_turbo"), "0");
  EXPECT_EQ(get(m.pol(0, "scaling_max_freq")), "3000000");  // the hidden request comes back
  EXPECT_THROW(m.io.write(m.pol(0, "scaling_setspeed"), "2000000"), std::runtime_error);
  EXPECT_THROW(m.io.write(m.pol(0, "scaling_governor"), "userspace"), std::runtime_error);
}

TEST(KernelModel, SetspeedIsOnlyAFloorUnderIntelCpufreqWithHwpAndAmdGuided) {
  for (const char* name : {"intel_cpufreq_passive_hwp", "amd_pstate_guided"}) {
    Model m(name);
    m.io.write(m.pol(0, "scaling_governor"), "userspace");
    m.io.write(m.pol(0, "scaling_setspeed"), "1600000");
    EXPECT_EQ(get(m.pol(0, "scaling_cur_freq")), get(m.pol(0, "scaling_max_freq"))) << name;
    EXPECT_NE(get(m.pol(0, "scaling_cur_freq")), "1600000") << name;
  }
  Model honoured("amd_pstate_passive");
  honoured.io.write(honoured.pol(0, "scaling_governor"), "userspace");
  honoured.io.write(honoured.pol(0, "scaling_setspeed"), "1600000");
  EXPECT_EQ(get(honoured.pol(0, "scaling_cur_freq")), "1600000");
}

TEST(KernelModel, AnOfflineCpusPolicyAnswersEbusyToReadsAndWrites) {
  Model m("acpi_cpufreq_offline_cpu");
  EXPECT_FALSE(m.io.read(m.pol(1, "scaling_driver")));
  EXPECT_TRUE(m.io.read(m.pol(2, "scaling_driver")));
  try {
    m.io.write(m.pol(1, "scaling_max_freq"), "2000000");
    FAIL() << "the write was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("busy"), std::string::npos) << e.what();
  }
}

TEST(KernelModel, TpmiPackageWritesReachTheIoDiesAndValuesAreTruncatedTo100MHz) {
  Model m("intel_pstate_hwp_no_turbo_tpmi");
  const std::string u = m.cpu("intel_uncore_frequency/");
  m.io.write(u + "package_00_die_00/max_freq_khz", "1550000");
  EXPECT_EQ(get(u + "package_00_die_00/max_freq_khz"), "1500000");
  EXPECT_EQ(get(u + "uncore01/max_freq_khz"), "1500000");  // an I/O die
  EXPECT_THROW(m.io.write(u + "uncore00/min_freq_khz", "1600000"), std::runtime_error);  // above max
}

TEST(KernelModel, TheBaseClockIsFoundOnEveryDriverThatShowsIt) {
  for (const auto& l : all_layouts()) {
    Model m(l.name);
    const CpufreqSysfs s(m.io, m.root);
    ASSERT_TRUE(s.base_khz()) << l.name;
    EXPECT_EQ(*s.base_khz(), l.base_khz) << l.name;
    EXPECT_EQ(s.offline_policies().size(), l.offline_cpus.size()) << l.name;
  }
}

}  // namespace
}  // namespace hpcsens::sweep::testing
