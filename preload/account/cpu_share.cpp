#include "preload/account/cpu_share.h"

#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>

namespace hpcsens::preload {

nlohmann::json cpu_share_json() {
  nlohmann::json j = nlohmann::json::object();
  if (const long online = sysconf(_SC_NPROCESSORS_ONLN); online > 0) j["online"] = online;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) j["allowed"] = CPU_COUNT(&set);
  struct rusage ru {};
  if (getrusage(RUSAGE_SELF, &ru) == 0) {
    auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec); };
    j["used_s"] = seconds(ru.ru_utime) + seconds(ru.ru_stime);
  }
  // The kernel's time this (main) thread spent runnable but waiting for a CPU
  // (Documentation/scheduler/sched-stats.rst: the second field of /proc/<pid>/schedstat, in ns):
  // unlike CPU time below wall time, a sleep or a blocking wait does not count.
  if (FILE* f = std::fopen("/proc/self/schedstat", "r")) {
    unsigned long long on_cpu = 0, waiting = 0;
    if (std::fscanf(f, "%llu %llu", &on_cpu, &waiting) == 2) j["run_delay_s"] = 1e-9 * static_cast<double>(waiting);
    std::fclose(f);
  }
  return j;
}

}  // namespace hpcsens::preload
