// What a disabled PAPI perf_event component is said to mean (topdown/pmu_advice.h), for the
// machines it was seen on and the ones it can be: pure, with the CPU and PAPI's reason passed in.
#include <gtest/gtest.h>

#include "topdown/pmu_advice.h"

using namespace hpcsens::topdown;

namespace {

CpuId cpu(const char* vendor, int family, int model, bool vm) {
  CpuId c;
  c.vendor = vendor;
  c.family = family;
  c.model = model;
  c.virtualised = vm;
  return c;
}

constexpr char kNoDefaultPmu[] = "Error libpfm4 no default PMU found";

// The 16-core Xeon VM this was found on (Intel family 6 model 0xcf, no vPMU, Debian 12's PAPI).
TEST(PmuAdvice, AVmWhoseCpuLibpfm4DoesNotKnowSaysSoAndOffersEventsNone) {
  const auto a = perf_component_advice(kNoDefaultPmu, cpu("GenuineIntel", 6, 0xcf, true), true);
  EXPECT_EQ(a.detail,
            "PAPI's perf_event component is disabled (Error libpfm4 no default PMU found): libpfm4 recognises no "
            "core PMU on this CPU (Intel family 6 model 0xcf) and this virtual machine exposes none, so PAPI "
            "counts nothing here, software events included; the kernel's software events exist, PAPI cannot "
            "reach them");
  EXPECT_EQ(a.fix,
            "run with --events none (timings, MPI, I/O and a sweep's rates do not need counters); to count, give "
            "the VM a PMU (PMU passthrough), or install a libpfm4 and PAPI that know this CPU");
}

TEST(PmuAdvice, OnBareMetalNoVirtualMachineIsBlamed) {
  const auto a = perf_component_advice(kNoDefaultPmu, cpu("AuthenticAMD", 0x1a, 0x44, false), false);
  EXPECT_NE(a.detail.find("(AMD family 0x1a model 0x44), so PAPI counts nothing here"), std::string::npos) << a.detail;
  EXPECT_EQ(a.detail.find("virtual machine"), std::string::npos) << a.detail;
  EXPECT_EQ(a.detail.find("kernel's software events exist"), std::string::npos) << a.detail;
  EXPECT_EQ(a.fix.find("passthrough"), std::string::npos) << a.fix;
  EXPECT_NE(a.fix.find("install a libpfm4 and PAPI that know this CPU"), std::string::npos) << a.fix;
}

TEST(PmuAdvice, OtherReasonsAreQuotedAndTheFixFollowsTheKernel) {
  auto a = perf_component_advice("perf_event support not detected", cpu("GenuineIntel", 6, 0x55, false), false);
  EXPECT_EQ(a.detail, "PAPI's perf_event component is disabled (perf_event support not detected), so PAPI counts nothing here");
  EXPECT_NE(a.fix.find("CONFIG_PERF_EVENTS"), std::string::npos) << a.fix;
  a = perf_component_advice("", cpu("GenuineIntel", 6, 0x55, false), true);
  EXPECT_NE(a.detail.find("(no reason given)"), std::string::npos) << a.detail;
  EXPECT_NE(a.fix.find("papi_component_avail"), std::string::npos) << a.fix;
}

TEST(PmuAdvice, CpuWordsNameTheIdentityAsTheTablesDo) {
  EXPECT_EQ(cpu_words(cpu("GenuineIntel", 6, 0x4f, false)), "Intel family 6 model 0x4f");
  EXPECT_EQ(cpu_words(cpu("AuthenticAMD", 0x17, 0x31, false)), "AMD family 0x17 model 0x31");
  CpuId arm;
  arm.vendor = "ARM";
  arm.arm_implementer = 0x41;
  arm.arm_part = 0xd08;
  EXPECT_EQ(cpu_words(arm), "Arm implementer 0x41 part 0xd08");
  EXPECT_EQ(cpu_words(cpu("HygonGenuine", 0x18, 1, false)), "vendor 'HygonGenuine' family 24 model 1");
}

}  // namespace
