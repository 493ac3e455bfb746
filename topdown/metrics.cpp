#include "topdown/metrics.h"

#include <cmath>
#include <cstdio>

namespace hpcsens::topdown {
namespace {

// Counter lookup that ignores a "pmu::" prefix (but keeps perf::, a PAPI component name).
class Counts {
 public:
  explicit Counts(const std::map<std::string, double>& raw) {
    for (const auto& [k, v] : raw) {
      const auto pos = k.find("::");
      if (pos != std::string::npos && k.compare(0, pos, "perf") != 0)
        m_[k.substr(pos + 2)] = v;
      else
        m_[k] = v;
    }
  }
  bool has(const char* name) const { return m_.count(name) != 0; }
  double get(const char* name) const {
    auto it = m_.find(name);
    return it == m_.end() ? 0.0 : it->second;
  }
  // Names among `names` that are missing, comma separated (empty: all present).
  std::string missing(std::initializer_list<const char*> names) const {
    std::string out;
    for (const char* n : names)
      if (!has(n)) out += (out.empty() ? "" : ", ") + std::string(n);
    return out;
  }

 private:
  std::map<std::string, double> m_;
};

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

// Backend split shared by Skylake and Ice Lake (perf tma_memory_bound): stalled cycles on memory
// over all backend-stall cycles, times Backend Bound.
void intel_backend_split(TopdownMetrics& m, const Counts& c) {
  if (!m.backend_bound || !m.retiring) return;
  if (!c.missing({ev::kStallsMemAny, ev::kBoundOnStores, ev::kStallsTotal, ev::kPorts1, ev::kPorts2}).empty())
    return;
  const double be_cycles = c.get(ev::kStallsTotal) + c.get(ev::kPorts1) +
                           *m.retiring * c.get(ev::kPorts2) + c.get(ev::kBoundOnStores);
  auto share = ratio(c.get(ev::kStallsMemAny) + c.get(ev::kBoundOnStores), be_cycles);
  if (!share) return;
  m.memory_bound = *share * *m.backend_bound;
  m.core_bound = *m.backend_bound - *m.memory_bound;
}

void skylake(TopdownMetrics& m, const Counts& c, bool smt) {
  const char* clk = smt ? ev::kClkAny : ev::kClk;
  const char* rec = smt ? ev::kRecoveryAny : ev::kRecovery;
  if (fail(m, c.missing({clk, ev::kIdqNotDelivered, ev::kUopsIssued, ev::kRetireSlots, rec}))) return;
  // SMT: core clocks and recovery cycles are the any-thread counts halved (perf TMA, #SMT_on).
  const double core_clks = smt ? c.get(clk) / 2 : c.get(clk);
  const double recovery = smt ? c.get(rec) / 2 : c.get(rec);
  const double slots = 4 * core_clks;
  if (slots <= 0) return (void)fail(m, std::string(clk) + " is zero");
  m.frontend_bound = c.get(ev::kIdqNotDelivered) / slots;
  m.bad_speculation = (c.get(ev::kUopsIssued) - c.get(ev::kRetireSlots) + 4 * recovery) / slots;
  m.retiring = c.get(ev::kRetireSlots) / slots;
  m.backend_bound = 1 - (*m.frontend_bound + *m.bad_speculation + *m.retiring);
  m.ok = true;
  if (c.has(ev::kIdqCycles0)) {
    m.fetch_latency = 4 * c.get(ev::kIdqCycles0) / slots;
    m.fetch_bandwidth = *m.frontend_bound - *m.fetch_latency;
  }
  if (c.has(ev::kBrMisp) && c.has(ev::kMachineClears)) {
    if (auto share = ratio(c.get(ev::kBrMisp), c.get(ev::kBrMisp) + c.get(ev::kMachineClears))) {
      m.branch_mispredicts = *share * *m.bad_speculation;
      m.machine_clears = *m.bad_speculation - *m.branch_mispredicts;
    }
  }
  intel_backend_split(m, c);
  set_freq_ipc(m, c, ev::kInst, ev::kClk);
}

// Ice Lake and Sapphire Rapids. With the kernel's PERF_METRICS events (topdown-*) each level-1
// node is its slot count over the sum of the four (perf's tma_* formulas); otherwise the
// general-purpose slot events over TOPDOWN.SLOTS.
void icelake_or_later(TopdownMetrics& m, const Counts& c, int width, bool spr) {
  const bool have_slots = c.has(ev::kSlots) && c.get(ev::kSlots) > 0;
  const double slots = c.get(ev::kSlots);
  const double dropping = c.has(ev::kUopDropping) && have_slots ? c.get(ev::kUopDropping) / slots : 0.0;
  double pm_sum = 0;
  if (c.missing({ev::kTdRetiring, ev::kTdBadSpec, ev::kTdFeBound, ev::kTdBeBound}).empty()) {
    pm_sum = c.get(ev::kTdRetiring) + c.get(ev::kTdBadSpec) + c.get(ev::kTdFeBound) + c.get(ev::kTdBeBound);
  }
  if (pm_sum > 0) {
    m.from_perf_metrics = true;
    m.retiring = c.get(ev::kTdRetiring) / pm_sum;
    m.bad_speculation = c.get(ev::kTdBadSpec) / pm_sum;
    m.frontend_bound = c.get(ev::kTdFeBound) / pm_sum - dropping;
    m.backend_bound = c.get(ev::kTdBeBound) / pm_sum;
    m.ok = true;
    if (c.has(ev::kTdMemBound)) {
      m.memory_bound = c.get(ev::kTdMemBound) / pm_sum;
      m.core_bound = *m.backend_bound - *m.memory_bound;
    }
    if (c.has(ev::kTdBrMispredict)) {
      m.branch_mispredicts = c.get(ev::kTdBrMispredict) / pm_sum;
      m.machine_clears = *m.bad_speculation - *m.branch_mispredicts;
    }
    if (c.has(ev::kTdFetchLat)) {
      m.fetch_latency = c.get(ev::kTdFetchLat) / pm_sum - dropping;
      m.fetch_bandwidth = *m.frontend_bound - *m.fetch_latency;
    }
  } else {
    std::initializer_list<const char*> need_icx = {ev::kSlots, ev::kUopsRetiredSlots,
                                                    ev::kIdqNotDelivered, ev::kBackendSlots};
    std::initializer_list<const char*> need_spr = {ev::kSlots, ev::kUopsRetiredSlots,
                                                    ev::kIdqNotDelivered, ev::kBackendSlots,
                                                    ev::kBadSpecSlots};
    if (fail(m, c.missing(spr ? need_spr : need_icx))) return;
    if (!have_slots) return (void)fail(m, std::string(ev::kSlots) + " is zero");
    m.retiring = c.get(ev::kUopsRetiredSlots) / slots;
    m.frontend_bound = (c.get(ev::kIdqNotDelivered) - c.get(ev::kUopDropping)) / slots;
    m.backend_bound = c.get(ev::kBackendSlots) / slots;
    // Ice Lake has no bad-speculation slot event: it is what the other three leave.
    m.bad_speculation = spr ? c.get(ev::kBadSpecSlots) / slots
                            : 1 - (*m.retiring + *m.frontend_bound + *m.backend_bound);
    m.ok = true;
  }
  if (!m.fetch_latency && c.has(ev::kIdqCycles0) && have_slots) {
    m.fetch_latency = (width * c.get(ev::kIdqCycles0) - c.get(ev::kUopDropping)) / slots;
    m.fetch_bandwidth = *m.frontend_bound - *m.fetch_latency;
  }
  if (!m.branch_mispredicts && c.has(ev::kBrMispSlots) && have_slots) {
    m.branch_mispredicts = c.get(ev::kBrMispSlots) / slots;
    m.machine_clears = *m.bad_speculation - *m.branch_mispredicts;
  }
  if (!m.memory_bound && spr && c.has(ev::kMemBoundSlots) && have_slots) {
    m.memory_bound = c.get(ev::kMemBoundSlots) / slots;
    m.core_bound = *m.backend_bound - *m.memory_bound;
  }
  if (!m.memory_bound) intel_backend_split(m, c);
  set_freq_ipc(m, c, ev::kInst, ev::kClk);
}

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
  if (c.has(ev::kAmdBrMisp) && c.has(ev::kAmdResyncs)) {
    if (auto share = ratio(c.get(ev::kAmdBrMisp), c.get(ev::kAmdBrMisp) + c.get(ev::kAmdResyncs))) {
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
  // Mispredict recovery cycles move from Frontend to Bad Speculation; V1's perf metrics use
  // 4 x BR_MIS_PRED / cycles, V2's BR_MIS_PRED / (4 x cycles).
  const double recovery = v2 ? c.get(ev::kArmBrMisPred) / (4 * cycles) : 4 * c.get(ev::kArmBrMisPred) / cycles;
  m.frontend_bound = c.get(ev::kArmStallSlotFe) / slots - recovery;
  m.bad_speculation = (1 - useful) * issued + recovery;
  m.retiring = useful * issued;
  m.backend_bound = c.get(ev::kArmStallSlotBe) / slots;
  m.ok = true;
  set_freq_ipc(m, c, ev::kArmInst, ev::kArmCycles);
}

void stall_ratios(TopdownMetrics& m, const Counts& c, const char* cycles, const char* inst,
                  const char* fe, const char* be) {
  if (fail(m, c.missing({cycles, fe, be}))) return;
  if (c.get(cycles) <= 0) return (void)fail(m, std::string(cycles) + " is zero");
  m.frontend_stalls = c.get(fe) / c.get(cycles);
  m.backend_stalls = c.get(be) / c.get(cycles);
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
    case Uarch::kIntelSkylake: skylake(m, c, t.smt); break;
    case Uarch::kIntelIceLake: icelake_or_later(m, c, t.width, false); break;
    case Uarch::kIntelSapphireRapids: icelake_or_later(m, c, t.width, true); break;
    case Uarch::kAmdZen4:
    case Uarch::kAmdZen5: amd_zen(m, c, t.width); break;
    case Uarch::kArmNeoverseV1: neoverse_slots(m, c, false); break;
    case Uarch::kArmNeoverseV2: neoverse_slots(m, c, true); break;
    case Uarch::kAmdZen3:
      stall_ratios(m, c, ev::kAmdCycles, ev::kAmdInst, ev::kAmdOpQueueEmpty, ev::kAmdDispStall1);
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
