#pragma once
// What the per-microarchitecture formula files (metrics.cpp, metrics_intel.cpp) share: counter
// lookup by event name and the small helpers every formula uses. Internal to topdown/.
#include <initializer_list>
#include <map>
#include <optional>
#include <string>

#include "topdown/metrics.h"

namespace hpcsens::topdown::detail {

// Counter lookup that ignores a libpfm4 "pmu::" prefix ("skx::UOPS_ISSUED:ANY") but keeps the
// PAPI perf_event component's own prefixes ("perf::TASK-CLOCK", "perf_raw::r02a4"): those are part
// of the name the table records.
class Counts {
 public:
  explicit Counts(const std::map<std::string, double>& raw);
  bool has(const char* name) const { return m_.count(name) != 0; }
  double get(const char* name) const {
    auto it = m_.find(name);
    return it == m_.end() ? 0.0 : it->second;
  }
  // Names among `names` that are missing, comma separated (empty: all present).
  std::string missing(std::initializer_list<const char*> names) const;

 private:
  std::map<std::string, double> m_;
};

// num / den, or nothing when den <= 0 or either is not finite.
std::optional<double> ratio(double num, double den);
// Marks `m` not computed for the events in `missing`; true when any are missing.
bool fail(TopdownMetrics& m, const std::string& missing);
// IPC = inst / cycles and GHz = cycles / perf::TASK-CLOCK (ns), where those were counted.
void set_freq_ipc(TopdownMetrics& m, const Counts& c, const char* inst, const char* cycles);

// Intel formulas (metrics_intel.cpp).
void skylake(TopdownMetrics& m, const Counts& c, bool smt);
void icelake_or_later(TopdownMetrics& m, const Counts& c, int width, bool spr);

}  // namespace hpcsens::topdown::detail
