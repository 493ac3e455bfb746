#include "topdown/metrics.h"

#include <cmath>
#include <cstdio>

#include "topdown/metric_inputs.h"

namespace hpcsens::topdown {
namespace detail {

Counts::Counts(const std::map<std::string, double>& raw) {
  for (const auto& [k, v] : raw) {
    const auto pos = k.find("::");
    const bool papi_own = pos != std::string::npos &&
                          (k.compare(0, pos, "perf") == 0 || k.compare(0, pos, "perf_raw") == 0);
    if (pos != std::string::npos && !papi_own)
      m_[k.substr(pos + 2)] = v;
    else
      m_[k] = v;
  }
}

std::string Counts::missing(std::initializer_list<const char*> names) const {
  std::string out;
  for (const char* n : names)
    if (!has(n)) out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

std::optional<double> ratio(double num, double den) {
  if (den <= 0.0 || !std::isfinite(num) || !std::isfinite(den)) return std::nullopt;
  return num / den;
}

void set_freq_ipc(TopdownMetrics& m, const Counts& c, const char* inst, const char* cycles) {
  if (c.has(inst) && c.has(cycles)) m.ipc = ratio(c.get(inst), c.get(cycles));
  // TASK-CLOCK is in nanoseconds, so cycles per nanosecond is GHz.
  if (c.has(cycles) && c.has(ev::kTaskClock)) m.ghz = ratio(c.get(cycles), c.get(ev::kTaskClock));
}

bool fail(TopdownMetrics& m, const std::string& missing) {
  if (missing.empty()) return false;
  m.ok = false;
  m.why_not = "missing events: " + missing;
  return true;
}

}  // namespace detail

namespace {

using detail::Counts;
using detail::fail;
using detail::ratio;
using detail::set_freq_ipc;

void amd_zen(TopdownMetrics& m, const Counts& c, int width) {
  if (fail(m, c.missing({ev::kAmdCycles, ev::kAmdFeNoOps, ev::kAmdBeStalls, ev::kAmdSmt,
                         ev::kAmdOpsDispatched, ev::kAmdRetOps})))
    return;
  const double slots = width * c.get(ev::kAmdCycles);
  if (slots <= 0) return (void)fail(m, std::string(ev::kAmdCycles) + " is zero");
  m.frontend_bound = c.get(ev::kAmdFeNoOps) / slots;
  m.backend_bound = c.get(ev::kAmdBeStalls) / slots;
  m.smt_contention = c.get(ev::kAmdSmt) / slots;
  m.bad_speculation = (c.get(ev::kAmdOpsDispatched) - c.get(ev::kAmdRetOps)) / slots;
  m.retiring = c.get(ev::kAmdRetOps) / slots;
  m.ok = true;
  const char* lat = width == 8 ? ev::kAmdFeNoOpsLat8 : ev::kAmdFeNoOpsLat;
  if (c.has(lat)) {
    m.fetch_latency = width * c.get(lat) / slots;
    m.fetch_bandwidth = *m.frontend_bound - *m.fetch_latency;
  }
  // Pipeline restarts: Zen 4's PMCx096 (resyncs_or_nc_redirects), Zen 5's PMCx09F umask 1
  // (bp_redirects.resync), as perf's bad_speculation_from_mispredicts uses them.
  const char* resyncs = width == 8 ? ev::kAmdResyncsZen5 : ev::kAmdResyncs;
  if (c.has(ev::kAmdBrMisp) && c.has(resyncs)) {
    if (auto share = ratio(c.get(ev::kAmdBrMisp), c.get(ev::kAmdBrMisp) + c.get(resyncs))) {
      m.branch_mispredicts = *m.bad_speculation * *share;
      m.machine_clears = *m.bad_speculation - *m.branch_mispredicts;  // "pipeline restarts"
    }
  }
  if (c.has(ev::kAmdNoRetireLoad) && c.has(ev::kAmdNoRetireAll)) {
    if (auto share = ratio(c.get(ev::kAmdNoRetireLoad), c.get(ev::kAmdNoRetireAll))) {
      m.memory_bound = *m.backend_bound * *share;
      m.core_bound = *m.backend_bound - *m.memory_bound;
    }
  }
  set_freq_ipc(m, c, ev::kAmdInst, ev::kAmdCycles);
}

void neoverse_slots(TopdownMetrics& m, const Counts& c, bool v2) {
  if (fail(m, c.missing({ev::kArmCycles, ev::kArmStallSlot, ev::kArmStallSlotFe, ev::kArmStallSlotBe,
                         ev::kArmOpSpec, ev::kArmOpRetired, ev::kArmBrMisPred})))
    return;
  const double cycles = c.get(ev::kArmCycles);
  const double slots = 8 * cycles;
  if (slots <= 0 || c.get(ev::kArmOpSpec) <= 0)
    return (void)fail(m, "CPU_CYCLES or OP_SPEC is zero");
  const double useful = c.get(ev::kArmOpRetired) / c.get(ev::kArmOpSpec);
  const double issued = 1 - c.get(ev::kArmStallSlot) / slots;
  // Slots of mispredict recovery move to Bad Speculation: on V1 all 4 per mispredict from
  // Frontend (perf neoverse-v1 metrics); on V2 1 from Frontend and 3 from Backend (Arm Neoverse
  // V2 telemetry specification).
  const double mispredicts = c.get(ev::kArmBrMisPred) / cycles;
  m.frontend_bound = c.get(ev::kArmStallSlotFe) / slots - (v2 ? 1 : 4) * mispredicts;
  m.backend_bound = c.get(ev::kArmStallSlotBe) / slots - (v2 ? 3 : 0) * mispredicts;
  m.bad_speculation = (1 - useful) * issued + 4 * mispredicts;
  m.retiring = useful * issued;
  m.ok = true;
  set_freq_ipc(m, c, ev::kArmInst, ev::kArmCycles);
}

// `be2`: a second backend stall event whose cycles add to `be`'s (Zen 3: the dispatch stalls
// are split over PMCx0AE and PMCx0AF); nullptr when there is none.
void stall_ratios(TopdownMetrics& m, const Counts& c, const char* cycles, const char* inst,
                  const char* fe, const char* be, const char* be2 = nullptr) {
  if (fail(m, c.missing({cycles, fe, be}))) return;
  if (be2 != nullptr && fail(m, c.missing({be2}))) return;
  if (c.get(cycles) <= 0) return (void)fail(m, std::string(cycles) + " is zero");
  m.frontend_stalls = c.get(fe) / c.get(cycles);
  m.backend_stalls = (c.get(be) + (be2 != nullptr ? c.get(be2) : 0.0)) / c.get(cycles);
  m.ok = true;
  set_freq_ipc(m, c, inst, cycles);
}

void check_range(TopdownMetrics& m, const char* name, const std::optional<double>& v) {
  if (!v) return;
  if (!std::isfinite(*v) || *v < -kMismeasureTolerance || *v > 1 + kMismeasureTolerance) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%s = %.3f", name, *v);
    m.mismeasured.emplace_back(buf);
  }
}

}  // namespace

TopdownMetrics compute_metrics(std::string_view event_set, const std::map<std::string, double>& counters) {
  return compute_metrics(table_by_name(event_set), event_set, counters);
}

TopdownMetrics compute_metrics(const TopdownTable& t, std::string_view event_set,
                               const std::map<std::string, double>& counters) {
  TopdownMetrics m;
  m.table = std::string(event_set);
  m.method = t.method;
  if (t.name.empty()) {
    m.why_not = event_set.empty() ? "no Top-Down event set was counted"
                                  : "event set '" + std::string(event_set) + "' is not a Top-Down set";
    return m;
  }
  const Counts c(counters);
  switch (t.uarch) {
    case Uarch::kIntelSkylake: detail::skylake(m, c, t.smt); break;
    case Uarch::kIntelIceLake: detail::icelake_or_later(m, c, t.width, false); break;
    case Uarch::kIntelSapphireRapids: detail::icelake_or_later(m, c, t.width, true); break;
    case Uarch::kAmdZen4:
    case Uarch::kAmdZen5: amd_zen(m, c, t.width); break;
    case Uarch::kArmNeoverseV1: neoverse_slots(m, c, false); break;
    case Uarch::kArmNeoverseV2: neoverse_slots(m, c, true); break;
    case Uarch::kAmdZen3:
      stall_ratios(m, c, ev::kAmdCycles, ev::kAmdInst, ev::kAmdOpQueueEmpty, ev::kAmdDispStall1,
                   ev::kAmdDispStall2);
      break;
    case Uarch::kArmNeoverseN1:
      stall_ratios(m, c, ev::kArmCycles, ev::kArmInst, ev::kArmStallFe, ev::kArmStallBe);
      break;
    case Uarch::kUnknown: break;
  }
  if (!m.ok) return m;
  check_range(m, "Retiring", m.retiring);
  check_range(m, "Bad Speculation", m.bad_speculation);
  check_range(m, "Frontend Bound", m.frontend_bound);
  check_range(m, "Backend Bound", m.backend_bound);
  check_range(m, "SMT contention", m.smt_contention);
  check_range(m, "Memory Bound", m.memory_bound);
  check_range(m, "Core Bound", m.core_bound);
  check_range(m, "Fetch Latency", m.fetch_latency);
  check_range(m, "Fetch Bandwidth", m.fetch_bandwidth);
  check_range(m, "Branch Mispredicts", m.branch_mispredicts);
  check_range(m, "Machine Clears", m.machine_clears);
  check_range(m, "Frontend stalls", m.frontend_stalls);
  check_range(m, "Backend stalls", m.backend_stalls);
  if (m.method == Method::kSlots && m.retiring) {
    // Formulas that do not force the sum (Arm, AMD, Sapphire Rapids GP events) can drift apart
    // when counters are skewed or multiplexed: a level-1 sum far from 1 is not a breakdown.
    const double sum = *m.retiring + *m.bad_speculation + *m.frontend_bound + *m.backend_bound +
                       m.smt_contention.value_or(0.0);
    if (std::fabs(sum - 1) > 2 * kMismeasureTolerance) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "level-1 sum = %.3f", sum);
      m.mismeasured.emplace_back(buf);
    }
  }
  return m;
}

void mark_counters_failed(TopdownMetrics& m, const std::string& status) {
  TopdownMetrics failed;
  failed.table = std::move(m.table);
  failed.method = m.method;
  failed.why_not = status;
  m = std::move(failed);
}

void refuse_multiplexed_remainder(TopdownMetrics& m) {
  if (!m.ok || m.remainder == nullptr) return;
  m.mismeasured.push_back(std::string(m.remainder) +
                          " is what multiplexed (time-sliced) counts leave: not reliable");
}

std::vector<std::string> flagged_path(const TopdownMetrics& m, const Thresholds& t) {
  std::vector<std::string> path;
  if (!m.ok || !m.mismeasured.empty()) return path;
  if (m.method == Method::kStallRatios) {
    const double fe = m.frontend_stalls.value_or(0), be = m.backend_stalls.value_or(0);
    const bool fe_flag = fe > t.frontend_stalls, be_flag = be > t.backend_stalls;
    if (be_flag && (!fe_flag || be >= fe)) path.push_back("Backend stalls");
    else if (fe_flag) path.push_back("Frontend stalls");
    return path;
  }
  struct Cand {
    const char* name;
    double value, threshold;
  };
  // Pick the level-1 node with the most slots above its threshold, then its larger flagged child.
  const Cand l1[] = {{"Backend Bound", m.backend_bound.value_or(0), t.backend},
                     {"Frontend Bound", m.frontend_bound.value_or(0), t.frontend},
                     {"Bad Speculation", m.bad_speculation.value_or(0), t.bad_speculation}};
  const Cand* best = nullptr;
  for (const auto& c : l1)
    if (c.value > c.threshold && (!best || c.value - c.threshold > best->value - best->threshold))
      best = &c;
  if (!best) return path;
  path.push_back(best->name);
  const std::string parent = best->name;
  Cand kids[2] = {{"", 0, 1}, {"", 0, 1}};
  if (parent == "Backend Bound") {
    kids[0] = {"Memory Bound", m.memory_bound.value_or(0), t.memory};
    kids[1] = {"Core Bound", m.core_bound.value_or(0), t.core};
  } else if (parent == "Frontend Bound") {
    kids[0] = {"Fetch Latency", m.fetch_latency.value_or(0), t.fetch_latency};
    kids[1] = {"Fetch Bandwidth", m.fetch_bandwidth.value_or(0), t.fetch_bandwidth};
  } else {
    kids[0] = {"Branch Mispredicts", m.branch_mispredicts.value_or(0), t.branch_mispredicts};
    kids[1] = {"Machine Clears", m.machine_clears.value_or(0), t.machine_clears};
  }
  const Cand* kid = nullptr;
  for (const auto& k : kids)
    if (k.value > k.threshold && (!kid || k.value > kid->value)) kid = &k;
  if (kid) path.push_back(kid->name);
  return path;
}

std::string path_text(const std::vector<std::string>& path) {
  if (path.empty()) return "none";
  auto shorten = [](const std::string& s) {
    // "Backend Bound" -> "Backend", "Memory Bound" -> "Memory"; others unchanged.
    const std::string suffix = " Bound";
    if (s.size() > suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0)
      return s.substr(0, s.size() - suffix.size());
    return s;
  };
  std::string out;
  for (const auto& p : path) out += (out.empty() ? "" : " > ") + shorten(p);
  return out;
}

}  // namespace hpcsens::topdown
