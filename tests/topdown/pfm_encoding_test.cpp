// Every x86 event name in every Top-Down table must encode in Debian's libpfm4 (what PAPI 7.0
// uses for native names), checked without the hardware by forcing the PMU model:
// LIBPFM_FORCE_PMU is read by pfm_initialize(), so each PMU is checked in a forked child
// (tests/topdown/pfm_encode.cpp).
// Kernel PERF_METRICS pseudo-events and Arm events (Arm PMUs are not built into the x86
// libpfm4) are checked against the documented lists in topdown/event_tables.cpp instead.
#include <gtest/gtest.h>
#include <perfmon/pfmlib_perf_event.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "tests/topdown/pfm_encode.h"
#include "topdown/event_tables.h"

using namespace hpcsens::topdown;

namespace {

// Software events and raw encodings come from PAPI's perf_event component, not libpfm4's core
// PMU tables (raw encodings are checked against perf's event JSON in perf_encoding_test.cpp).
bool is_software(const std::string& e) { return e.rfind("perf::", 0) == 0 || e.rfind("perf_raw::", 0) == 0; }
bool is_kernel_topdown(const std::string& e) { return e.rfind("topdown-", 0) == 0; }

std::string encode_all(const std::string& pmu, const std::vector<std::string>& events) {
  return hpcsens::testing::pfm_encode_all(pmu, events);
}

bool is_x86(const TopdownTable& t) {
  return t.pfm_pmu.rfind("arm_", 0) != 0;
}

}  // namespace

TEST(PfmEncoding, NamedExamplesFromTheIssue) {
  EXPECT_EQ(encode_all("skx", {"UOPS_ISSUED:ANY"}), "");
  EXPECT_EQ(encode_all("icx", {"TOPDOWN:SLOTS"}), "");
  EXPECT_EQ(encode_all("amd64_fam19h_zen4", {"DISPATCH_STALLS_1:FE_NO_OPS"}), "");
}

TEST(PfmEncoding, ATypoIsCaught) {
  // The check must be able to fail: a misspelt umask does not encode.
  EXPECT_NE(encode_all("skx", {"UOPS_ISSUED:ANNY"}), "");
  EXPECT_NE(encode_all("icx", {"TOPDOWN:SLOT"}), "");
}

TEST(PfmEncoding, EveryX86TableEventEncodes) {
  int checked = 0;
  for (const auto& t : all_tables()) {
    if (!is_x86(t)) continue;
    std::vector<std::string> events;
    for (const auto& g : t.groups)
      for (const auto& e : g.events)
        if (!is_software(e) && !is_kernel_topdown(e)) events.push_back(e);
    checked += static_cast<int>(events.size());
    EXPECT_EQ(encode_all(t.pfm_pmu, events), "") << "table " << t.name << " on PMU " << t.pfm_pmu;
    if (t.uarch == Uarch::kIntelSkylake) {
      // Client Skylake .. Comet Lake share the table under libpfm4's "skl" PMU.
      EXPECT_EQ(encode_all("skl", events), "") << t.name << " on skl";
    }
    if (t.uarch == Uarch::kIntelIceLake) {
      EXPECT_EQ(encode_all("icl", events), "") << t.name << " on icl";
    }
  }
  EXPECT_GT(checked, 60);
}

TEST(PfmEncoding, KernelTopdownAndArmNamesAreDocumented) {
  const auto& kernel = kernel_topdown_events();
  const auto& armev = arm_documented_events();
  int arm_checked = 0;
  for (const auto& t : all_tables()) {
    for (const auto& g : t.groups) {
      for (const auto& e : g.events) {
        if (is_kernel_topdown(e)) {
          EXPECT_NE(std::find(kernel.begin(), kernel.end(), e), kernel.end()) << e;
        }
        if (!is_x86(t) && !is_software(e)) {
          EXPECT_NE(std::find(armev.begin(), armev.end(), e), armev.end()) << t.name << ": " << e;
          ++arm_checked;
        }
      }
    }
  }
  EXPECT_GE(arm_checked, 12);
  // The metric code reads these PERF_METRICS names; they must be in the kernel's list.
  for (const char* e : {ev::kTdRetiring, ev::kTdBadSpec, ev::kTdFeBound, ev::kTdBeBound, ev::kTdMemBound,
                        ev::kTdFetchLat, ev::kTdBrMispredict})
    EXPECT_NE(std::find(kernel.begin(), kernel.end(), e), kernel.end()) << e;
}
