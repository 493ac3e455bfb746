// hpcsens doctor's knob checks on every driver layout of the kernel model: the driver and mode
// are named, the Slurm backend is called refused exactly where the sweep refuses it, and the
// spec doctor proposes is one the sweep accepts on that node (advice never contradicts findings).
#include <gtest/gtest.h>

#include <sstream>

#include "fake_sysfs.h"
#include "kernel_model.h"
#include "resctrl_model.h"
#include "sweep/knobs/knob_doctor.h"
#include "sweep/knobs/knobs.h"
#include "sweep/spec/spec.h"

namespace hpcsens::sweep::testing {
namespace {

class KnobDoctor : public ::testing::TestWithParam<KernelLayout> {};

std::string fmt_base(const KernelLayout& l) {
  std::ostringstream o;
  o << "base " << l.base_khz / 1e6 << " GHz";
  return o.str();
}

const KnobCheck& find(const std::vector<KnobCheck>& checks, const std::string& name) {
  for (const auto& c : checks)
    if (c.name == name) return c;
  throw std::runtime_error("no check named " + name);
}

TEST_P(KnobDoctor, NamesTheDriverAndItsBackendsAndProposesASpecTheSweepAccepts) {
  const KernelLayout& l = GetParam();
  TempDir t;
  const std::string root = t.path() + "/sys";
  build_layout(root, l);
  KernelModel io;
  const auto checks = knob_checks(io, root, true);

  const auto& driver = find(checks, "cpufreq driver");
  EXPECT_EQ(driver.status, KnobCheck::Status::kOk);
  EXPECT_NE(driver.detail.find(l.driver), std::string::npos) << driver.detail;
  EXPECT_NE(driver.detail.find(l.turbo_on ? "turbo on now" : "turbo off now"), std::string::npos) << driver.detail;
  EXPECT_NE(driver.detail.find(fmt_base(l)), std::string::npos) << driver.detail;
  if (!l.offline_cpus.empty()) {
    EXPECT_NE(driver.detail.find("policy1 offline (skipped)"), std::string::npos);
  }

  // Slurm: refused exactly where the driver has no userspace governor, as the sweep refuses it.
  const bool userspace = l.driver != "intel_pstate" && l.driver != "amd-pstate-epp";
  const auto& slurm = find(checks, "cpu_backend: slurm");
  EXPECT_EQ(slurm.status, userspace ? KnobCheck::Status::kOk : KnobCheck::Status::kMissing) << slurm.detail;
  const std::string slurm_spec = "job: {command: [srun, ./app]}\nknobs: {cpu_ghz: [1.6], cpu_backend: slurm}\n"
                                 "backends: {sysfs_root: '" + root + "'}\n";
  if (userspace) {
    EXPECT_NO_THROW(KnobSet(parse_spec_text(slurm_spec, "s.yaml"), io));
  } else {
    EXPECT_THROW(KnobSet(parse_spec_text(slurm_spec, "s.yaml"), io), std::exception);
  }

  const auto& uncore = find(checks, "uncore frequency");
  EXPECT_EQ(uncore.status, l.uncore.empty() ? KnobCheck::Status::kMissing : KnobCheck::Status::kOk) << uncore.detail;
  if (l.uncore == "tpmi") {
    EXPECT_NE(uncore.detail.find("1 compute fabric cluster(s) swept, 2 I/O"), std::string::npos);
  }

  // The proposed knobs: line, taken literally, is accepted by the sweep's own probe here.
  const auto& spec = find(checks, "spec for this node");
  ASSERT_EQ(spec.detail.rfind("knobs: {", 0), 0u) << spec.detail;
  std::string knobs = spec.detail;
  if (auto u = knobs.find(", uncore_ghz: [LOW, HIGH]"); u != std::string::npos) knobs.replace(u, 25, ", uncore_ghz: [1.5]");
  const auto s = parse_spec_text("job: {command: [./app]}\n" + knobs + "\nbackends: {sysfs_root: '" + root + "'}\n", "d.yaml");
  EXPECT_NO_THROW(KnobSet(s, io)) << knobs;
}

INSTANTIATE_TEST_SUITE_P(EveryDriver, KnobDoctor, ::testing::ValuesIn(all_layouts()),
                         [](const auto& info) { return info.param.name; });

// A VM: no cpufreq. Nothing may point at a backend that the same report calls refused.
TEST(KnobDoctorNoCpufreq, AdviceNeverPointsAtARefusedBackend) {
  TempDir t;
  KernelModel io;
  const auto checks = knob_checks(io, t.path() + "/sys", true);
  EXPECT_EQ(find(checks, "cpu_backend: slurm").status, KnobCheck::Status::kMissing);
  for (const auto& c : checks) {
    EXPECT_EQ((c.detail + c.fix).find("cpu_backend: slurm"), std::string::npos) << c.name << ": " << c.detail;
  }
}

TEST(KnobDoctorResctrl, SaysWhetherMemoryBandwidthAllocationIsMountedAndGivesASpecTheSweepAccepts) {
  TempDir t;
  ResctrlModel resctrl;  // its tree's mount table says how it is mounted
  set_machine_resctrl(&resctrl);
  const std::string root = t.path() + "/sys";
  KernelModel io;
  auto c = find(knob_checks(io, root, false), "resctrl MBA");
  EXPECT_EQ(c.status, KnobCheck::Status::kMissing);
  EXPECT_NE(c.detail.find("resctrl is not mounted at " + root + "/fs/resctrl"), std::string::npos) << c.detail;
  EXPECT_NE(c.fix.find("mount -t resctrl resctrl " + root + "/fs/resctrl"), std::string::npos) << c.fix;
  build_resctrl(root + "/fs/resctrl", {.mba = false});
  c = find(knob_checks(io, root, false), "resctrl MBA");
  EXPECT_EQ(c.status, KnobCheck::Status::kMissing);
  EXPECT_NE(c.detail.find("offers no Memory Bandwidth Allocation"), std::string::npos) << c.detail;
  std::filesystem::remove_all(root + "/fs/resctrl");
  build_resctrl(root + "/fs/resctrl", {});
  c = find(knob_checks(io, root, false), "resctrl MBA");
  EXPECT_EQ(c.status, KnobCheck::Status::kOk);
  EXPECT_NE(c.detail.find("2 domains, MB: 10-100 % in steps of 10 %"), std::string::npos) << c.detail;
  // The spec it prints is one the sweep takes on this node.
  const auto at = c.detail.find("knobs: ");
  ASSERT_NE(at, std::string::npos) << c.detail;
  put(t.path() + "/spec.yaml", "job: {command: [mpirun, -np, '1', ./app]}\n" + c.detail.substr(at) +
                                   "\nbackends: {sysfs_root: '" + root + "'}\n");
  const auto spec = parse_spec_file(t.path() + "/spec.yaml");
  EXPECT_EQ(spec.mem_bw, (std::vector<long>{100, 50, 20}));
  const KnobSet knobs(spec, io);
  EXPECT_EQ(knobs.resctrl_root(), root + "/fs/resctrl");
  set_machine_resctrl(nullptr);
}

}  // namespace
}  // namespace hpcsens::sweep::testing
