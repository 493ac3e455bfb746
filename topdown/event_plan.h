#pragma once
// Which counters to ask PAPI for, given the user's --events spec and the CPU. Pure: the preload
// asks for a plan once at MPI_Init and reports what PAPI accepted; the topdown tables live here.
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
};

struct EventGroup {
  std::vector<std::string> events;  // PAPI/libpfm4 names, counted together in one event set
  bool required = true;             // false: drop silently (with a status note) if PAPI refuses
};

struct EventPlan {
  std::string name;               // "default", "topdown-skx", "custom", ...
  std::vector<EventGroup> groups; // more than one group => multiplexed, marked in the record
  bool available = true;          // false: nothing to count; `note` says why
  std::string note;               // why this plan was chosen, or why it is unavailable
};

// spec: "default", "none", "topdown", "topdown-l1", or a comma-separated list of event names.
EventPlan plan_events(std::string_view spec, const CpuId& cpu);

// Reads vendor/family/model from CPUID (x86) or /proc/cpuinfo (elsewhere).
CpuId detect_cpu();

}  // namespace hpcsens::topdown
