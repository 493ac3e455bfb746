// CPU classification, /proc/cpuinfo parsing and the plans handed to the preload.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "topdown/event_plan.h"
#include "topdown/event_tables.h"

using namespace hpcsens::topdown;

namespace {
CpuId intel(int model, bool smt = false, bool vm = false) {
  CpuId c;
  c.vendor = "GenuineIntel";
  c.family = 6;
  c.model = model;
  c.smt = smt;
  c.virtualised = vm;
  return c;
}
CpuId amd(int family, int model) {
  CpuId c;
  c.vendor = "AuthenticAMD";
  c.family = family;
  c.model = model;
  return c;
}
CpuId arm(int part) {
  CpuId c;
  c.vendor = "ARM";
  c.arm_implementer = 0x41;
  c.arm_part = part;
  return c;
}
}  // namespace

TEST(Classify, IntelGenerations) {
  EXPECT_EQ(classify_cpu(intel(0x55)).uarch, Uarch::kIntelSkylake);  // Skylake-SP / Cascade Lake
  EXPECT_EQ(classify_cpu(intel(0x6A)).uarch, Uarch::kIntelIceLake);  // Ice Lake-SP
  EXPECT_EQ(classify_cpu(intel(0x8F)).uarch, Uarch::kIntelSapphireRapids);
  EXPECT_EQ(classify_cpu(intel(0x1A)).uarch, Uarch::kUnknown);  // Nehalem: no table
  EXPECT_NE(classify_cpu(intel(0x1A)).reason.find("0x1a"), std::string::npos);
}

TEST(Classify, AmdAndArm) {
  EXPECT_EQ(classify_cpu(amd(0x19, 0x01)).uarch, Uarch::kAmdZen3);  // Milan
  EXPECT_EQ(classify_cpu(amd(0x19, 0x11)).uarch, Uarch::kAmdZen4);  // Genoa
  EXPECT_EQ(classify_cpu(amd(0x1A, 0x02)).uarch, Uarch::kAmdZen5);  // Turin
  EXPECT_EQ(classify_cpu(amd(0x17, 0x31)).uarch, Uarch::kUnknown);  // Zen 2
  EXPECT_EQ(classify_cpu(arm(0xd0c)).uarch, Uarch::kArmNeoverseN1);
  EXPECT_EQ(classify_cpu(arm(0xd40)).uarch, Uarch::kArmNeoverseV1);
  EXPECT_EQ(classify_cpu(arm(0xd4f)).uarch, Uarch::kArmNeoverseV2);
}

TEST(Cpuinfo, ParsesArmMidrFields) {
  const CpuId c = parse_cpuinfo(
      "processor\t: 0\nBogoMIPS\t: 2100.00\nFeatures\t: fp asimd sve\n"
      "CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x1\nCPU part\t: 0xd40\n"
      "CPU revision\t: 1\n\nprocessor\t: 1\nCPU implementer\t: 0x42\n");
  EXPECT_EQ(c.vendor, "ARM");
  EXPECT_EQ(c.arm_implementer, 0x41);
  EXPECT_EQ(c.arm_part, 0xd40);  // first block only
  EXPECT_EQ(table_for(c).name, "topdown-v1");
}

TEST(Cpuinfo, ParsesX86FieldsAndHypervisorFlag) {
  const CpuId c = parse_cpuinfo(
      "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\n"
      "model name\t: AMD EPYC 9654\nflags\t\t: fpu vme hypervisor avx512f\n");
  EXPECT_EQ(c.vendor, "AuthenticAMD");
  EXPECT_EQ(c.family, 25);
  EXPECT_EQ(c.model, 17);
  EXPECT_TRUE(c.virtualised);
  EXPECT_EQ(table_for(c).name, "topdown-zen4");
}

TEST(Cpuinfo, DetectAtFakeRootReadsSmt) {
  const auto root = std::filesystem::temp_directory_path() / ("td_root_" + std::to_string(::getpid()));
  std::filesystem::create_directories(root / "proc");
  std::filesystem::create_directories(root / "sys/devices/system/cpu/smt");
  std::ofstream(root / "proc/cpuinfo") << "vendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\n";
  std::ofstream(root / "sys/devices/system/cpu/smt/active") << "1\n";
  const CpuId c = detect_cpu_at(root.string());
  EXPECT_EQ(c.model, 85);
  EXPECT_TRUE(c.smt);
  EXPECT_EQ(plan_events("topdown", c).name, "topdown-skx-smt");
  std::filesystem::remove_all(root);
}

TEST(Plan, SkylakeSmtOnAndOffDiffer) {
  const EventPlan off = plan_events("topdown", intel(0x55, false));
  const EventPlan on = plan_events("topdown", intel(0x55, true));
  EXPECT_EQ(off.name, "topdown-skx");
  EXPECT_EQ(on.name, "topdown-skx-smt");
  auto has = [](const EventPlan& p, const std::string& e) {
    for (const auto& g : p.groups)
      for (const auto& x : g.events)
        if (x == e) return true;
    return false;
  };
  EXPECT_TRUE(has(off, "INT_MISC:RECOVERY_CYCLES"));
  EXPECT_TRUE(has(on, "INT_MISC:RECOVERY_CYCLES_ANY"));
  EXPECT_TRUE(has(on, "CPU_CLK_UNHALTED:THREAD_P:t=1"));
  // Bare metal with SMT: a refusal most likely comes from the AnyThread permission.
  EXPECT_NE(on.refusal_hint.find("AnyThread"), std::string::npos) << on.refusal_hint;
  EXPECT_EQ(off.refusal_hint.find("AnyThread"), std::string::npos) << off.refusal_hint;
}

TEST(Plan, LevelOneGroupIsRequiredLevelTwoOptional) {
  for (const auto& t : all_tables()) {
    ASSERT_FALSE(t.groups.empty()) << t.name;
    EXPECT_TRUE(t.groups[0].required) << t.name;
    for (std::size_t i = 1; i < t.groups.size(); ++i) EXPECT_FALSE(t.groups[i].required) << t.name;
  }
  const EventPlan l1 = plan_events("topdown-l1", intel(0x6A));
  EXPECT_EQ(l1.name, "topdown-icx-l1");
  EXPECT_EQ(l1.groups.size(), 1u);
  EXPECT_EQ(table_by_name("topdown-icx-l1").name, "topdown-icx");
}

TEST(Plan, VirtualMachineStillGetsAPlanWithAHint) {
  // This VM reports family 6 model 0xa7 with the hypervisor bit; the plan exists and the
  // preload's refusal message names the likely cause.
  const EventPlan p = plan_events("topdown", intel(0xA7, false, true));
  EXPECT_TRUE(p.available);
  EXPECT_EQ(p.name, "topdown-icx");
  EXPECT_FALSE(p.groups.empty());
  EXPECT_EQ(unavailable_status(p, "TOPDOWN:SLOTS"),
            "Top-Down unavailable: TOPDOWN:SLOTS not supported (no hardware PMU / virtual machine "
            "without PMU passthrough)");
}

TEST(Plan, UnknownCpuIsUnavailableWithReason) {
  const EventPlan p = plan_events("topdown", amd(0x17, 0x31));
  EXPECT_FALSE(p.available);
  EXPECT_NE(p.note.find("Top-Down unavailable"), std::string::npos) << p.note;
  EXPECT_NE(p.note.find("Zen 2"), std::string::npos) << p.note;
}

TEST(Plan, DefaultNoneCustomAndBadSpecUnchanged) {
  EXPECT_EQ(plan_events("default", {}).name, "default");
  EXPECT_FALSE(plan_events("none", {}).available);
  const EventPlan c = plan_events("PAPI_TOT_CYC, perf::TASK-CLOCK", {});
  ASSERT_EQ(c.groups.size(), 1u);
  EXPECT_EQ(c.groups[0].events, (std::vector<std::string>{"PAPI_TOT_CYC", "perf::TASK-CLOCK"}));
  const EventPlan bad = plan_events("topdown-l9", intel(0x55));
  EXPECT_FALSE(bad.available);  // never throws: the preload calls this inside MPI_Init
}

TEST(Plan, EventNamesAreUniqueWithinATable) {
  // Records key counters by name: a name in two groups would overwrite itself.
  for (const auto& t : all_tables()) {
    std::set<std::string> seen;
    for (const auto& g : t.groups)
      for (const auto& e : g.events) EXPECT_TRUE(seen.insert(e).second) << t.name << ": " << e;
  }
}

TEST(Plan, TablelessCpusAreUnavailableWithTheirReason) {
  // Zen 1 and Zen 2 (family 0x17), Intel before Skylake, Arm cores without a table and other
  // implementers: no plan, and the note names the CPU and why.
  const struct {
    CpuId cpu;
    const char* reason;
  } cases[] = {
      {amd(0x17, 0x01), "AMD family 0x17 model 0x1: no Top-Down table (Zen 2 and older have no slot events)"},
      {amd(0x17, 0x31), "AMD family 0x17 model 0x31: no Top-Down table (Zen 2 and older have no slot events)"},
      {amd(0x15, 0x02), "AMD family 0x15 model 0x2: no Top-Down table (Zen 2 and older have no slot events)"},
      {intel(0x4F), "Intel family 6 model 0x4f: no Top-Down table for this model"},  // Broadwell-EP
      {intel(0x3F), "Intel family 6 model 0x3f: no Top-Down table for this model"},  // Haswell-EP
      {arm(0xd08), "Arm implementer 0x41 part 0xd08: no Top-Down table for this core"},  // Cortex-A72
  };
  for (const auto& c : cases) {
    const EventPlan p = plan_events("topdown", c.cpu);
    EXPECT_FALSE(p.available) << c.reason;
    EXPECT_TRUE(p.groups.empty()) << c.reason;
    EXPECT_EQ(p.note, std::string("Top-Down unavailable: ") + c.reason);
  }
  CpuId ampere;  // another implementer (Ampere 0xc0): not an Arm Ltd. core
  ampere.vendor = "ARM";
  ampere.arm_implementer = 0xc0;
  ampere.arm_part = 0xac3;
  EXPECT_EQ(plan_events("topdown", ampere).note, "Top-Down unavailable: Arm implementer 0xc0 part 0xac3: no Top-Down table for this core");
}

TEST(Cpuinfo, InjectedRootReplacesThisMachineAndIsLabelled) {
  const auto root = std::filesystem::temp_directory_path() / ("td_inject_" + std::to_string(::getpid()));
  std::filesystem::create_directories(root / "proc");
  std::ofstream(root / "proc/cpuinfo") << "vendor_id\t: AuthenticAMD\ncpu family\t: 23\nmodel\t\t: 49\n";
  ::setenv(kCpuRootEnv, root.c_str(), 1);
  const CpuId zen2 = detect_cpu();
  ::unsetenv(kCpuRootEnv);
  EXPECT_EQ(zen2.family, 0x17);
  EXPECT_EQ(zen2.model, 0x31);
  EXPECT_EQ(zen2.injected_root, root.string());
  const EventPlan p = plan_events("topdown", zen2);
  EXPECT_EQ(p.note, "Top-Down unavailable: AMD family 0x17 model 0x31: no Top-Down table (Zen 2 and older have no "
                    "slot events) [CPU identity injected by HPCSENS_CPU_ROOT=" + root.string() +
                        ", not read from this machine]");

  std::ofstream(root / "proc/cpuinfo") << "vendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\n";
  ::setenv(kCpuRootEnv, root.c_str(), 1);
  const EventPlan skx = plan_events("topdown", detect_cpu());
  ::unsetenv(kCpuRootEnv);
  EXPECT_EQ(skx.name, "topdown-skx");
  EXPECT_NE(skx.note.find("[CPU identity injected by HPCSENS_CPU_ROOT="), std::string::npos) << skx.note;
  EXPECT_NE(skx.refusal_hint.find("need not have that CPU's events"), std::string::npos) << skx.refusal_hint;
  EXPECT_TRUE(detect_cpu().injected_root.empty());  // unset again: this machine
  std::filesystem::remove_all(root);
}
