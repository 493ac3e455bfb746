// Knob backends against a fake sysfs tree: exact values and order of every write, and restore.
#include <gtest/gtest.h>

#include "common/errors.h"
#include "fake_sysfs.h"
#include "sweep/knobs/cpufreq_sysfs.h"
#include "sweep/knobs/knobs.h"
#include "sweep/knobs/restore.h"
#include "sweep/spec/spec.h"
#include "sweep/knobs/uncore_sysfs.h"

namespace hpcsens::sweep {
namespace {

using testing::get;
using testing::policy_dir;
using testing::RecordingSysfs;
using testing::TempDir;
using testing::uncore_dir;

std::vector<std::string> names(const std::vector<FileWrite>& w, const std::string& root) {
  std::vector<std::string> out;
  for (const auto& f : w) out.push_back(f.path.substr(root.size()) + "=" + f.value);
  return out;
}

TEST(SweepWriteOrder, MovingUpWritesMaxFirstMovingDownWritesMinFirst) {
  // From the default window (0.8-3.5 GHz) down to a pinned 1.2: min first keeps min <= max.
  EXPECT_FALSE(write_max_first(800000, 3500000, 1200000, 1200000));
  // Pinned 1.2 up to pinned 2.0: min first would leave min 2.0 > max 1.2.
  EXPECT_TRUE(write_max_first(1200000, 1200000, 2000000, 2000000));
  // Pinned 2.0 down to pinned 1.2: max first would leave max 1.2 < min 2.0.
  EXPECT_FALSE(write_max_first(2000000, 2000000, 1200000, 1200000));
}

// The window is pinned first: with intel_cpufreq (HWP) and amd-pstate guided, scaling_setspeed
// alone is only a floor and a busy core runs at scaling_max_freq.
TEST(SweepCpufreqUserspace, PinsTheWindowThenSetsGovernorAndSetspeedInKhzOnEveryPolicy) {
  TempDir t;
  testing::make_acpi_cpufreq(t.path(), 2);
  RecordingSysfs io;
  CpufreqSysfs cf(io, t.path());
  EXPECT_EQ(cf.mode(), CpufreqSysfs::Mode::kUserspace);
  EXPECT_EQ(cf.driver(), "acpi-cpufreq");
  cf.apply(io, cf.set_khz(1.6), false);
  const std::string p0 = "/devices/system/cpu/cpufreq/policy0/", p1 = "/devices/system/cpu/cpufreq/policy1/";
  const std::vector<std::string> want = {
      p0 + "scaling_min_freq=1600000", p0 + "scaling_max_freq=1600000", p0 + "scaling_governor=userspace",
      p0 + "scaling_setspeed=1600000", p1 + "scaling_min_freq=1600000", p1 + "scaling_max_freq=1600000",
      p1 + "scaling_governor=userspace", p1 + "scaling_setspeed=1600000"};
  EXPECT_EQ(names(io.writes, t.path()), want);
  EXPECT_EQ(get(policy_dir(t.path(), 1) + "/scaling_setspeed"), "1600000");
  // Already userspace: the window (max first, moving up) and the speed are written.
  io.writes.clear();
  cf.apply(io, cf.set_khz(2.0), false);
  EXPECT_EQ(names(io.writes, t.path())[0], p0 + "scaling_max_freq=2000000");
  ASSERT_EQ(io.writes.size(), 6u);
  EXPECT_EQ(io.writes[2].value, "2000000");
  EXPECT_EQ(io.writes[2].path, t.path() + p0 + "scaling_setspeed");
}

TEST(SweepCpufreqUserspace, AvailableFrequenciesComeFromTheDriverList) {
  TempDir t;
  testing::make_acpi_cpufreq(t.path(), 1);
  RealSysfs io;
  CpufreqSysfs cf(io, t.path());
  EXPECT_EQ(cf.available_ghz(false), (std::vector<double>{1.2, 1.6, 2.0, 2.4}));
}

TEST(SweepIntelPstate, PinsMinEqualsMaxInOrderThatNeverCrosses) {
  TempDir t;
  testing::make_intel_pstate(t.path(), 1);
  RecordingSysfs io;
  CpufreqSysfs cf(io, t.path());
  EXPECT_EQ(cf.mode(), CpufreqSysfs::Mode::kPinMinMax);
  const std::string d = "/devices/system/cpu/cpufreq/policy0/";
  cf.apply(io, 1200000, false);  // down from 0.8-3.5: min first
  EXPECT_EQ(names(io.writes, t.path()),
            (std::vector<std::string>{d + "scaling_min_freq=1200000", d + "scaling_max_freq=1200000"}));
  io.writes.clear();
  cf.apply(io, 2000000, false);  // up from pinned 1.2: max first
  EXPECT_EQ(names(io.writes, t.path()),
            (std::vector<std::string>{d + "scaling_max_freq=2000000", d + "scaling_min_freq=2000000"}));
  io.writes.clear();
  cf.apply(io, 1500000, false);  // down from pinned 2.0: min first
  EXPECT_EQ(names(io.writes, t.path()),
            (std::vector<std::string>{d + "scaling_min_freq=1500000", d + "scaling_max_freq=1500000"}));
  EXPECT_EQ(get(t.path() + d + "scaling_min_freq"), "1500000");
  EXPECT_EQ(get(t.path() + d + "scaling_max_freq"), "1500000");
  // Without a frequency list: 100 MHz steps over the hardware range (with turbo: up to cpuinfo_max).
  const auto all = cf.available_ghz(true);
  ASSERT_EQ(all.size(), 28u);
  EXPECT_DOUBLE_EQ(all.front(), 0.8);
  EXPECT_DOUBLE_EQ(all.back(), 3.5);
  EXPECT_THROW(cf.apply(io, 3600000, false), std::runtime_error);
}

TEST(SweepAmdPstateEpp, NoUserspaceGovernorMeansPinning) {
  TempDir t;
  testing::make_intel_pstate(t.path(), 1);
  testing::put(policy_dir(t.path(), 0) + "/scaling_driver", "amd-pstate-epp");
  RealSysfs io;
  CpufreqSysfs cf(io, t.path());
  EXPECT_EQ(cf.mode(), CpufreqSysfs::Mode::kPinMinMax);
  EXPECT_EQ(cf.files_to_save().size(), 2u);  // min and max only
}

TEST(SweepCpufreq, NoPoliciesIsAClearError) {
  TempDir t;
  RealSysfs io;
  try {
    CpufreqSysfs cf(io, t.path());
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no cpufreq policies under " + t.path()), std::string::npos);
  }
}

TEST(SweepUncore, PinsEveryPackageInKhzAndNeverCrosses) {
  TempDir t;
  testing::make_uncore(t.path(), 2);
  RecordingSysfs io;
  UncoreSysfs u(io, t.path());
  ASSERT_EQ(u.domains().size(), 2u);
  u.apply(io, {1.8, 1.8});
  const std::string d0 = "/devices/system/cpu/intel_uncore_frequency/package_00_die_00/";
  const std::string d1 = "/devices/system/cpu/intel_uncore_frequency/package_01_die_00/";
  EXPECT_EQ(names(io.writes, t.path()),
            (std::vector<std::string>{d0 + "min_freq_khz=1800000", d0 + "max_freq_khz=1800000",
                                      d1 + "min_freq_khz=1800000", d1 + "max_freq_khz=1800000"}));
  io.writes.clear();
  u.apply(io, {2.2, 2.4});
  EXPECT_EQ(names(io.writes, t.path())[0], d0 + "max_freq_khz=2400000");
  EXPECT_EQ(get(t.path() + d1 + "min_freq_khz"), "2200000");
  // Outside the range the driver booted with (0.8-2.5 GHz): an error, not a silent clamp.
  EXPECT_THROW(u.apply(io, {2.0, 3.0}), std::runtime_error);
}

TEST(SweepRestore, PutsEverythingBackWithoutCrossingAndSkipsUnsupportedSetspeed) {
  TempDir t;
  testing::make_acpi_cpufreq(t.path(), 1);
  testing::make_intel_pstate(t.path() + "/p", 1);
  testing::make_uncore(t.path(), 1);
  // An operator-raised floor: restoring it from a pinned 1.0 GHz must raise max first.
  testing::put(t.path() + "/p/devices/system/cpu/cpufreq/policy0/scaling_min_freq", "2000000");
  RecordingSysfs io;
  CpufreqSysfs acpi(io, t.path());
  CpufreqSysfs pstate(io, t.path() + "/p");
  UncoreSysfs unc(io, t.path());
  std::vector<std::string> files = acpi.files_to_save();
  for (auto& f : pstate.files_to_save()) files.push_back(f);
  for (auto& f : unc.files_to_save()) files.push_back(f);
  const auto saved = save_files(io, files);
  acpi.apply(io, 1200000, false);
  pstate.apply(io, 1000000, false);
  unc.apply(io, {1.0, 1.0});
  io.writes.clear();
  const auto r = restore_files(io, saved);
  EXPECT_TRUE(r.errors.empty());
  // Real sysfs shows "<unsupported>" again once the governor is back; a plain file cannot. So
  // setspeed is skipped with its reason, never counted as restored.
  ASSERT_EQ(r.skipped.size(), 1u);
  EXPECT_EQ(r.skipped[0].path, testing::policy_dir(t.path(), 0) + "/scaling_setspeed");
  EXPECT_EQ(r.skipped[0].reason, "was <unsupported> (governor ondemand), restored by restoring the governor");
  EXPECT_EQ(r.restored.size(), saved.size() - 1);
  for (const auto& f : r.restored) EXPECT_EQ(get(f.path), f.value) << f.path;
  EXPECT_EQ(get(testing::policy_dir(t.path(), 0) + "/scaling_governor"), "ondemand");
  // pstate pinned at 1.0 back to 2.0-3.5: max first; setspeed "<unsupported>" is never written.
  const std::string pd = t.path() + "/p/devices/system/cpu/cpufreq/policy0/";
  std::vector<std::string> order;
  for (const auto& w : io.writes) {
    EXPECT_NE(w.value, "<unsupported>");
    if (w.path.rfind(pd, 0) == 0) order.push_back(w.path.substr(pd.size()));
  }
  EXPECT_EQ(order, (std::vector<std::string>{"scaling_max_freq", "scaling_min_freq"}));
}

TEST(SweepRestore, SetspeedSavedUnderUserspaceIsRestoredAndPlaceholdersAreSkipped) {
  TempDir t;
  testing::make_acpi_cpufreq(t.path(), 1);
  const auto d = testing::policy_dir(t.path(), 0);
  testing::put(d + "/scaling_governor", "userspace");
  testing::put(d + "/scaling_setspeed", "2000000");
  RecordingSysfs io;
  CpufreqSysfs acpi(io, t.path());
  const auto saved = save_files(io, acpi.files_to_save());
  EXPECT_TRUE(restore_skips(saved).empty());
  acpi.apply(io, 1200000, false);
  const auto r = restore_files(io, saved);
  EXPECT_TRUE(r.errors.empty() && r.skipped.empty());
  EXPECT_EQ(r.restored.size(), saved.size());
  EXPECT_EQ(get(d + "/scaling_setspeed"), "2000000");
  // Any other sysfs placeholder is not a value either.
  const auto k = restore_skips({{d + "/energy_performance_preference", "<unsupported>"}});
  ASSERT_EQ(k.size(), 1u);
  EXPECT_EQ(k[0].reason, "was <unsupported>, not a writable value");
}

TEST(SweepKnobSet, OutOfRangeAndMissingBackendsAreInputErrorsNamingTheField) {
  TempDir t;
  testing::make_acpi_cpufreq(t.path(), 1);
  RealSysfs io;
  auto spec = parse_spec_text("job: {command: [mpirun, -np, 2, ./a]}\nknobs: {cpu_ghz: [1.2, 3.0]}\n"
                              "backends: {sysfs_root: " + t.path() + "}\n", "s.yaml");
  try {
    KnobSet k(spec, io);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("knobs.cpu_ghz: 3 GHz is outside"), std::string::npos) << e.what();
  }
  auto spec2 = parse_spec_text("job: {command: [mpirun, ./a]}\nknobs: {uncore_ghz: [1.2]}\n"
                               "backends: {sysfs_root: " + t.path() + "}\n", "s.yaml");
  EXPECT_THROW(KnobSet(spec2, io), InputError);
}

}  // namespace
}  // namespace hpcsens::sweep
