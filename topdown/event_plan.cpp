#include "topdown/event_plan.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "topdown/event_tables.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace hpcsens::topdown {
namespace {

// Items trimmed of surrounding blanks; blanks inside an item are kept, so "a b" stays one
// (invalid) name that PAPI refuses by name instead of silently becoming "ab".
std::vector<std::string> split_commas(std::string_view s) {
  std::vector<std::string> out;
  while (true) {
    const size_t comma = s.find(',');
    std::string_view item = s.substr(0, comma);
    const size_t b = item.find_first_not_of(" \t");
    if (b != std::string_view::npos) {
      item = item.substr(b, item.find_last_not_of(" \t") - b + 1);
      out.emplace_back(item);
    }
    if (comma == std::string_view::npos) return out;
    s.remove_prefix(comma + 1);
  }
}

// Plans made for a stand-in CPU say so in their note (and so in the record's counters_status).
std::string injected_label(const CpuId& cpu) {
  if (cpu.injected_root.empty()) return {};
  return std::string(" [CPU identity injected by ") + kCpuRootEnv + "=" + cpu.injected_root +
         ", not read from this machine]";
}

}  // namespace

EventPlan plan_events(std::string_view spec, const CpuId& cpu) {
  EventPlan plan;
  if (spec.empty() || spec == "default") {
    // Software events work everywhere PAPI's perf_event component does (VMs included);
    // cycles and instructions are added where a PMU exists and dropped quietly where not.
    // Context switches happen in the kernel: PAPI's default user-only domain counts none of
    // them, so the event asks for kernel counting (k=1). That needs perf_event_paranoid <= 1
    // or root, hence its own optional group.
    plan.name = "default";
    plan.groups.push_back({{"perf::TASK-CLOCK"}, true});
    plan.groups.push_back({{"perf::CONTEXT-SWITCHES:k=1"}, false});
    plan.groups.push_back({{"PAPI_TOT_CYC", "PAPI_TOT_INS"}, false});
    plan.note = "software events, plus cycles and instructions where a PMU exists";
    return plan;
  }
  if (spec == kEventsNone) {
    plan.name = kEventsNone;
    plan.available = false;
    plan.note = kEventsNoneNote;
    return plan;
  }
  if (spec == "topdown" || spec == "topdown-l1") {
    const bool l1_only = spec == "topdown-l1";
    const UarchInfo info = classify_cpu(cpu);
    const TopdownTable table = table_for(cpu);
    if (table.name.empty()) {
      plan.name = std::string(spec);
      plan.available = false;
      plan.note = "Top-Down unavailable: " + info.reason + injected_label(cpu);
      return plan;
    }
    plan.name = table.name + (l1_only ? "-l1" : "");
    for (const auto& g : table.groups) {
      if (l1_only && !plan.groups.empty()) break;
      plan.groups.push_back(g);
    }
    plan.note = info.label + " (" + info.reason + ")" +
                (table.method == Method::kStallRatios ? "; stall-cycle ratios, not slots" : "") +
                (plan.groups.size() > 1 ? "; level-2 groups are counted only where they fit on the counters beside level 1" : "") +
                (table.raw_encodings.empty() ? "" : "; " + table.raw_encodings) + injected_label(cpu);
    plan.raw_encodings = table.raw_encodings;
    // A guest without PMU passthrough still reports the host's CPUID; PAPI then refuses every
    // hardware event, so name the likely cause where we can.
    if (!cpu.injected_root.empty()) {
      plan.refusal_hint = std::string("CPU identity injected by ") + kCpuRootEnv + "=" + cpu.injected_root +
                          ": this machine's PMU need not have that CPU's events";
    } else if (cpu.virtualised) {
      plan.refusal_hint = "no hardware PMU / virtual machine without PMU passthrough";
    } else if (table.smt) {
      // The kernel allows the AnyThread bit only with perf_event_paranoid <= 0 or CAP_SYS_ADMIN.
      plan.refusal_hint =
          "the SMT formulas count both hardware threads (AnyThread), which needs "
          "perf_event_paranoid <= 0 or root; or run with SMT off";
    } else {
      plan.refusal_hint = "hardware counters not accessible: check perf_event_paranoid and "
                          "whether another tool holds the counters (hpcsens doctor)";
    }
    return plan;
  }
  if (spec.rfind("topdown", 0) == 0) {
    // Never throws: the preload calls this inside the user's MPI_Init.
    plan.name = std::string(spec);
    plan.available = false;
    plan.note = "unknown Top-Down spec '" + std::string(spec) + "' (use topdown or topdown-l1)";
    return plan;
  }
  plan.name = "custom";
  std::vector<std::string> events = split_commas(spec);
  if (events.empty()) {
    plan.available = false;
    plan.note = "--events '" + std::string(spec) + "' names no event";
    return plan;
  }
  plan.groups.push_back({std::move(events), true});
  plan.note = "events named by --events";
  return plan;
}

std::string unavailable_status(const EventPlan& plan, std::string_view event,
                               std::string_view papi_error) {
  const bool topdown = plan.name.rfind("topdown", 0) == 0;
  std::string s = topdown ? "Top-Down unavailable: " : "counters unavailable: ";
  s += std::string(event) + " not supported";
  if (!papi_error.empty()) s += " [" + std::string(papi_error) + "]";
  if (!plan.refusal_hint.empty()) s += " (" + plan.refusal_hint + ")";
  return s;
}

namespace {

std::string trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

int parse_int(const std::string& v) {
  try {
    return static_cast<int>(std::stol(v, nullptr, 0));  // "0x41" and "6" alike
  } catch (...) {
    return -1;
  }
}

}  // namespace

CpuId parse_cpuinfo(std::string_view text) {
  CpuId id;
  std::istringstream in{std::string(text)};
  std::string line;
  bool seen_x86 = false, seen_arm = false;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) {
      if (trim(line).empty() && (seen_x86 || seen_arm)) break;  // first processor block only
      continue;
    }
    const std::string key = trim(std::string_view(line).substr(0, colon));
    const std::string val = trim(std::string_view(line).substr(colon + 1));
    if (key == "vendor_id") {
      id.vendor = val;
      seen_x86 = true;
    } else if (key == "cpu family") {
      id.family = parse_int(val);
    } else if (key == "model") {
      id.model = parse_int(val);
    } else if (key == "flags") {
      id.virtualised = (" " + val + " ").find(" hypervisor ") != std::string::npos;
    } else if (key == "CPU implementer") {
      id.arm_implementer = parse_int(val);
      id.vendor = "ARM";
      seen_arm = true;
    } else if (key == "CPU part") {
      id.arm_part = parse_int(val);
    }
  }
  return id;
}

CpuId detect_cpu_at(const std::string& root) {
  CpuId id;
#if defined(__x86_64__) || defined(__i386__)
  const bool use_cpuid = root == "/" || root.empty();
#else
  const bool use_cpuid = false;
#endif
  if (!use_cpuid) {
    // Called in every rank's MPI_Init: /proc/cpuinfo is only read where CPUID cannot answer.
    std::ifstream f(root + "/proc/cpuinfo");
    std::stringstream ss;
    ss << f.rdbuf();
    id = parse_cpuinfo(ss.str());
  }
#if defined(__x86_64__) || defined(__i386__)
  if (use_cpuid) {
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
  }
#endif
  std::ifstream smt(root + "/sys/devices/system/cpu/smt/active");
  int active = 0;
  if (smt >> active) id.smt = active != 0;
  return id;
}

CpuId detect_cpu() {
  const char* root = std::getenv(kCpuRootEnv);
  if (root == nullptr || *root == '\0') return detect_cpu_at("/");
  // Only read and parsed: the files stand in for the CPU's identity, nothing in them is run.
  CpuId id = detect_cpu_at(root);
  id.injected_root = root;
  return id;
}

}  // namespace hpcsens::topdown
