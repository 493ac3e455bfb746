#include "counter_agent/running_fraction.h"

#include <dirent.h>
#include <unistd.h>

namespace hpcsens::agent {

// PAPI 7.0's perf_event component (perf_event.c, open_pe_events) opens a set it does not
// multiplex as one group whose leader has attr.pinned = 1. The kernel never rotates a pinned
// group off the counters; when it cannot schedule it, the group goes to the error state and
// every read returns end of file (perf_event_open(2), "pinned"), which PAPI reports as a short
// read: PAPI_stop fails. So a stop that succeeded read a group that counted whenever its thread
// ran: time_running == time_enabled. Two cases break that inference and are said instead.
RunningFraction papi_running_fraction(const std::vector<std::string>& events, bool multiplexed, bool hybrid) {
  RunningFraction f;
  if (multiplexed) {
    f.reason = "multiplexed: PAPI 7.0 scales each event by its time_enabled/time_running inside PAPI_stop "
               "and returns no fraction";
    return f;
  }
  if (hybrid) {
    f.reason = "hybrid CPU (more than one core PMU): the pinned group does not count while the thread runs "
               "on the other core type, and PAPI 7.0 returns no time_running";
    return f;
  }
  for (const auto& e : events) f.by_event[e] = 1.0;
  f.reason = "pinned group: PAPI 7.0 counts a set it does not multiplex as one pinned perf_event group, "
             "which the kernel never time-slices (one it cannot keep on the counters reads end of file "
             "and the stop fails)";
  return f;
}

bool hybrid_core_pmus(const std::string& devices_dir) {
  DIR* d = ::opendir(devices_dir.c_str());
  if (d == nullptr) return false;
  int with_cpus = 0;
  while (const dirent* e = ::readdir(d)) {
    if (e->d_name[0] == '.') continue;
    const std::string cpus = devices_dir + "/" + e->d_name + "/cpus";
    if (::access(cpus.c_str(), F_OK) == 0) ++with_cpus;
  }
  ::closedir(d);
  return with_cpus > 1;
}

}  // namespace hpcsens::agent
