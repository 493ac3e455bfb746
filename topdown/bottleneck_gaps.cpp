// Where a flagged path stops at level 1 because level 2 was not counted, and why (bottleneck.h).
#include "topdown/bottleneck.h"

namespace hpcsens::topdown {
namespace {

// Where the level-1 node's children are not counted, and why (the counter agent leaves out a
// level-2 group that does not fit beside level 1; docs/methodology.md, "Multiplexing").
std::string level2_reason(const TopdownTable& t, const std::string& parent) {
  if (t.name.size() > 3 && t.name.compare(t.name.size() - 3, 3, "-l1") == 0)
    return "counted with --events topdown-l1: level 1 only";
  const std::string fit = "its events did not fit on the counters beside level 1";
  if (t.uarch == Uarch::kAmdZen4 || t.uarch == Uarch::kAmdZen5) return fit + ": on Zen 4/5 level 1 takes all six";
  if (t.uarch == Uarch::kIntelSkylake && t.smt) return fit + ": with SMT on level 1 takes all four per thread";
  if ((t.uarch == Uarch::kIntelSkylake || t.uarch == Uarch::kIntelIceLake) && parent == "Backend Bound")
    return fit + ": Memory/Core Bound need five cycle events more";
  return fit + " (the record's preload notes name them)";
}

}  // namespace

std::string level2_not_counted(const TopdownMetrics& m, const std::vector<std::string>& path) {
  if (path.size() != 1 || m.method == Method::kStallRatios) return "";
  const std::string& p = path.front();
  const bool counted = p == "Backend Bound"    ? m.memory_bound || m.core_bound
                       : p == "Frontend Bound" ? m.fetch_latency || m.fetch_bandwidth
                                               : m.branch_mispredicts || m.machine_clears;
  return counted ? "" : level2_reason(table_by_name(m.table), p);
}

std::string path_text_with_gaps(const TopdownMetrics& m, const std::vector<std::string>& path) {
  const std::string why = level2_not_counted(m, path);
  return path_text(path) + (why.empty() ? "" : " > level 2 not counted (" + why + ")");
}

}  // namespace hpcsens::topdown
