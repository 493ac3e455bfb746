#pragma once
// How much of its enabled time each counted event actually counted (perf's time_running /
// time_enabled), as far as the counting session can know it. PAPI 7.0 returns no such figure
// (neither PAPI_read, PAPI_read_ts nor the multiplexing calls expose perf's two times), so
// the session states the fraction only where it follows from how PAPI opened the events, and
// otherwise says why it is not known. Pure apart from hybrid_core_pmus' look at sysfs.
#include <map>
#include <string>
#include <vector>

namespace hpcsens::agent {

struct RunningFraction {
  std::map<std::string, double> by_event;  // empty: not known
  std::string reason;                      // how it is known, or why it is not
};

// After PAPI_stop read `events` (all of the set) without error. `multiplexed`: the set was
// PAPI_set_multiplex'ed. `hybrid`: the host has more than one core PMU (hybrid_core_pmus).
RunningFraction papi_running_fraction(const std::vector<std::string>& events, bool multiplexed, bool hybrid);

// More than one core PMU under `devices_dir` (each core PMU of a hybrid CPU, e.g. cpu_core and
// cpu_atom, or the clusters of an Arm big.LITTLE, lists its CPUs in a "cpus" file; a one-PMU
// host's "cpu" PMU has none). An unreadable directory counts as one PMU.
bool hybrid_core_pmus(const std::string& devices_dir = "/sys/bus/event_source/devices");

}  // namespace hpcsens::agent
