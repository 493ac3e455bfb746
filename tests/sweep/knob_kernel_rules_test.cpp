// The real sysfs reader and writer against the kernel model's system calls: a read that fails
// stays an error (EBUSY on an offline policy means "offline: skip it and name it", never ""),
// nominal_freq 0 means "unknown", and uncore values outside a cluster's initial range are refused
// when the spec is read.
#include <gtest/gtest.h>

#include <cerrno>

#include "common/errors.h"
#include "fake_sysfs.h"
#include "kernel_model.h"
#include "model_node.h"
#include "sweep/knobs/cpufreq_sysfs.h"
#include "sweep/knobs/knobs.h"
#include "sweep/knobs/restore.h"
#include "sweep/spec/spec.h"

namespace hpcsens::sweep::testing {
namespace {

using Node = ModelNode;

TEST(KnobKernelRules, TheRealReaderReturnsEbusyFromAnOfflinePolicyNotAnEmptyValue) {
  Node n("acpi_cpufreq_offline_cpu");
  // The policy's files open fine (the file is there); read(2) fails.
  const SysfsRead r = RealSysfs().read_file(n.pol(1, "scaling_min_freq"));
  EXPECT_FALSE(r.value.has_value()) << "read as '" << r.value.value_or("") << "'";
  EXPECT_EQ(r.error, EBUSY);
  EXPECT_NE(r.why.find("policy1/scaling_min_freq"), std::string::npos) << r.why;
  EXPECT_EQ(RealSysfs().read_file(n.pol(2, "scaling_min_freq")).value.value_or(""), "1200000");
  const CpufreqSysfs c(n.io, n.root);
  ASSERT_EQ(c.offline_policies().size(), 1u);
  EXPECT_EQ(c.offline_policies()[0], policy_dir(n.root, 1));
  EXPECT_EQ(c.policies().size(), 2u);
}

TEST(KnobKernelRules, SavingAnOfflinePolicyIsAnErrorNeverAnEmptyValue) {
  Node n("acpi_cpufreq_offline_cpu");
  try {
    const auto saved = save_files(n.io, {n.pol(0, "scaling_max_freq"), n.pol(1, "scaling_max_freq")});
    FAIL() << "saved " << saved.size() << " values, the second '" << saved.back().value << "'";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("policy1/scaling_max_freq"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("offline"), std::string::npos) << e.what();
  }
}

TEST(KnobKernelRules, RestoreSkipsAndNamesAPolicyThatWentOfflineAndFailsNothing) {
  Node n("acpi_cpufreq_offline_cpu");
  // Saved while policy1 was online (a sweep killed, then its CPU taken offline before --restore).
  const std::vector<FileWrite> saved = {{n.pol(0, "scaling_min_freq"), "1200000"},
                                        {n.pol(0, "scaling_max_freq"), "2800000"},
                                        {n.pol(1, "scaling_min_freq"), "1200000"},
                                        {n.pol(1, "scaling_max_freq"), "2800000"}};
  n.io.write(n.pol(0, "scaling_min_freq"), "1600000");
  n.io.write(n.pol(0, "scaling_max_freq"), "1600000");
  const auto r = restore_files(n.io, saved);
  EXPECT_TRUE(r.errors.empty()) << r.errors.front();
  ASSERT_EQ(r.skipped.size(), 2u);
  for (const auto& k : r.skipped) {
    EXPECT_NE(k.path.find("/policy1/scaling_m"), std::string::npos) << k.path;
    EXPECT_NE(k.reason.find("offline"), std::string::npos) << k.reason;
  }
  EXPECT_EQ(get(n.pol(0, "scaling_min_freq")), "1200000");
  EXPECT_EQ(r.restored.size(), 2u);
  // An older journal that saved "" for an offline policy: skipped and said, not an error forever.
  const auto old = restore_files(n.io, {{n.pol(1, "scaling_max_freq"), ""}});
  EXPECT_TRUE(old.errors.empty());
  ASSERT_EQ(old.skipped.size(), 1u);
  EXPECT_NE(old.skipped[0].reason.find("saved empty"), std::string::npos);
  EXPECT_EQ(restore_target_problem({n.pol(1, "scaling_max_freq"), ""}, n.root), "");
}

TEST(KnobKernelRules, NominalFreqZeroIsAnUnknownBaseClockNotZeroGhz) {
  Node n("cppc_cpufreq");
  for (int c = 0; c < 2; ++c) put(n.root + "/devices/system/cpu/cpu" + std::to_string(c) + "/acpi_cppc/nominal_freq", "0");
  const CpufreqSysfs c(n.io, n.root);
  EXPECT_FALSE(c.base_khz().has_value()) << *c.base_khz();
  EXPECT_EQ(n.error("{cpu_ghz: [1.0, 2.0, 3.0]}"), "");
  // With the register present the base clock counts again.
  Node shown("cppc_cpufreq");
  EXPECT_EQ(CpufreqSysfs(shown.io, shown.root).base_khz().value_or(0), 2400000);
}

TEST(KnobKernelRules, UncoreValuesOutsideAClustersInitialRangeAreRefusedWhenTheSpecIsRead) {
  Node n("intel_pstate_hwp_no_turbo_tpmi");  // compute cluster: 0.8 - 2.5 GHz
  const std::string above = n.error("{uncore_ghz: [2.0, 2.8]}");
  EXPECT_NE(above.find("s.yaml:2: knobs.uncore_ghz: 2.8 GHz is above uncore00's initial_max_freq_khz 2500000"),
            std::string::npos) << above;
  const std::string below = n.error("{uncore_ghz: [{min: 0.5, max: 2.0}]}");
  EXPECT_NE(below.find("0.5 GHz is below uncore00's initial_min_freq_khz 800000"), std::string::npos) << below;
  EXPECT_EQ(n.error("{uncore_ghz: [0.8, 2.5]}"), "");
  // With knobs.uncore_domains: all the I/O clusters (up to 2.0 GHz) must hold the value too.
  EXPECT_NE(n.error("{uncore_ghz: [2.5], uncore_domains: all}").find("above uncore01's initial_max_freq_khz 2000000"),
            std::string::npos);
}

}  // namespace
}  // namespace hpcsens::sweep::testing
