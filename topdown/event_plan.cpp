#include "topdown/event_plan.h"

#include <fstream>
#include <sstream>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace hpcsens::topdown {
namespace {

std::vector<std::string> split_commas(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else if (c != ' ') {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

}  // namespace

EventPlan plan_events(std::string_view spec, const CpuId& cpu) {
  (void)cpu;
  EventPlan plan;
  if (spec.empty() || spec == "default") {
    // Software events work everywhere PAPI's perf_event component does (VMs included);
    // cycles and instructions are added where a PMU exists and dropped quietly where not.
    plan.name = "default";
    plan.groups.push_back({{"perf::TASK-CLOCK", "perf::CONTEXT-SWITCHES"}, true});
    plan.groups.push_back({{"PAPI_TOT_CYC", "PAPI_TOT_INS"}, false});
    plan.note = "software events, plus cycles and instructions where a PMU exists";
    return plan;
  }
  if (spec == "none") {
    plan.name = "none";
    plan.available = false;
    plan.note = "counters disabled (--events none)";
    return plan;
  }
  if (spec.rfind("topdown", 0) == 0) {
    plan.name = std::string(spec);
    plan.available = false;
    plan.note = "Top-Down tables not built yet";
    return plan;
  }
  plan.name = "custom";
  plan.groups.push_back({split_commas(spec), true});
  plan.note = "events named by --events";
  return plan;
}

CpuId detect_cpu() {
  CpuId id;
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(0, &a, &b, &c, &d)) {
    char v[13] = {};
    std::memcpy(v, &b, 4);
    std::memcpy(v + 4, &d, 4);
    std::memcpy(v + 8, &c, 4);
    id.vendor = v;
  }
  if (__get_cpuid(1, &a, &b, &c, &d)) {
    const unsigned base_family = (a >> 8) & 0xf, ext_family = (a >> 20) & 0xff;
    const unsigned base_model = (a >> 4) & 0xf, ext_model = (a >> 16) & 0xf;
    id.family = static_cast<int>(base_family == 0xf ? base_family + ext_family : base_family);
    id.model = static_cast<int>(
        (base_family == 0x6 || base_family == 0xf) ? (ext_model << 4) | base_model : base_model);
    id.virtualised = (c >> 31) & 1;
  }
#endif
  std::ifstream smt("/sys/devices/system/cpu/smt/active");
  int active = 0;
  if (smt >> active) id.smt = active != 0;
  return id;
}

}  // namespace hpcsens::topdown
