#pragma once
// Which counters to ask PAPI for, given the user's --events spec and the CPU. Pure: the preload
// asks for a plan once at MPI_Init and reports what PAPI accepted; the topdown tables live here
// (topdown/event_tables.h).
#include <string>
#include <string_view>
#include <vector>

namespace hpcsens::topdown {

struct CpuId {
  std::string vendor;  // "GenuineIntel", "AuthenticAMD", "ARM", ...
  int family = 0;
  int model = 0;
  bool smt = false;    // more than one hardware thread per core is online
  bool virtualised = false;
  // Arm only (MIDR fields from /proc/cpuinfo "CPU implementer" / "CPU part"); -1 elsewhere.
  int arm_implementer = -1;
  int arm_part = -1;
  // Set when the identity was read from $HPCSENS_CPU_ROOT instead of this machine: plans say so,
  // so a record made with a stand-in CPU is never taken for a measurement of that CPU's identity.
  std::string injected_root;
};

// Environment variable naming a directory that stands in for / when the CPU is identified
// (<dir>/proc/cpuinfo, <dir>/sys/devices/system/cpu/smt/active). For tests and for checking what
// hpcsens would do on another machine; the table it selects is labelled as injected.
inline constexpr char kCpuRootEnv[] = "HPCSENS_CPU_ROOT";

struct EventGroup {
  std::vector<std::string> events;  // PAPI/libpfm4 names, counted together in one event set
  bool required = true;             // false: drop silently (with a status note) if PAPI refuses
};

struct EventPlan {
  std::string name;               // "default", "topdown-skx", "custom", ...
  std::vector<EventGroup> groups; // more than one group => multiplexed, marked in the record
  bool available = true;          // false: nothing to count; `note` says why
  std::string note;               // why this plan was chosen, or why it is unavailable
  // Added for Top-Down: what most likely went wrong when PAPI refuses a required event of this
  // plan (e.g. "no hardware PMU / virtual machine without PMU passthrough"). Empty: no guess.
  std::string refusal_hint;
  // Events of this plan counted by raw encoding, and why (topdown tables only; the counter agent
  // puts it in the record's notes). Empty: none.
  std::string raw_encodings;
};

// The plan of spec "none": nothing counted, and the preload starts no counter agent for it.
inline constexpr char kEventsNone[] = "none";
inline constexpr char kEventsNoneNote[] = "counters disabled (--events none)";

// The named event sets plan_events knows (the CLI's --events help and messages list these).
inline constexpr const char* kEventPresets[] = {"default", "none", "topdown", "topdown-l1"};

// spec: one of kEventPresets, or a comma-separated list of event names.
// "topdown" always returns a plan for a known microarchitecture even on a VM without PMU: the
// preload finds out at run time that PAPI refuses the events and records unavailable_status().
EventPlan plan_events(std::string_view spec, const CpuId& cpu);

// The counters_status line the preload records when PAPI refuses `event` of a required group:
// "Top-Down unavailable: <event> not supported (<hint>)" for Top-Down plans.
std::string unavailable_status(const EventPlan& plan, std::string_view event,
                               std::string_view papi_error = {});

// Reads vendor/family/model from CPUID (x86) or /proc/cpuinfo (elsewhere); from
// $HPCSENS_CPU_ROOT's files when that is set (injected_root says so).
CpuId detect_cpu();
// Same, reading /proc/cpuinfo and /sys/devices/system/cpu/smt/active below `root` (tests use a
// fake tree). CPUID is still used on x86 when root is "/".
CpuId detect_cpu_at(const std::string& root);
// Parses /proc/cpuinfo text: vendor_id/cpu family/model (x86) or CPU implementer/CPU part (Arm).
CpuId parse_cpuinfo(std::string_view text);

}  // namespace hpcsens::topdown
