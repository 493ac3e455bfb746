// Intel Top-Down formulas, as Linux perf's TMA metric files define them (sources per table in
// topdown/event_tables.cpp; docs/methodology.md "Top-Down analysis").
#include <algorithm>
#include <string>

#include "topdown/metric_inputs.h"

namespace hpcsens::topdown::detail {
namespace {

// perf tma_memory_bound (Skylake and Ice Lake): stalled cycles on memory over all backend-stall
// cycles, times Backend Bound. Ice Lake's tma_core_bound is clamped at 0, Skylake's is not.
void intel_backend_split(TopdownMetrics& m, const Counts& c, bool clamp_core) {
  if (!m.backend_bound || !m.retiring) return;
  if (!c.missing({ev::kStallsMemAny, ev::kBoundOnStores, ev::kStallsTotal, ev::kPorts1, ev::kPorts2}).empty())
    return;
  const double be_cycles = c.get(ev::kStallsTotal) + c.get(ev::kPorts1) +
                           *m.retiring * c.get(ev::kPorts2) + c.get(ev::kBoundOnStores);
  auto share = ratio(c.get(ev::kStallsMemAny) + c.get(ev::kBoundOnStores), be_cycles);
  if (!share) return;
  m.memory_bound = *share * *m.backend_bound;
  m.core_bound = *m.backend_bound - *m.memory_bound;
  if (clamp_core) m.core_bound = std::max(0.0, *m.core_bound);
}

// perf tma_branch_mispredicts before Sapphire Rapids: Bad Speculation split by the retired
// mispredicts' share of mispredicts plus machine clears.
void split_bad_speculation_by_clears(TopdownMetrics& m, const Counts& c, bool clamp) {
  if (!m.bad_speculation || !c.has(ev::kBrMisp) || !c.has(ev::kMachineClears)) return;
  auto share = ratio(c.get(ev::kBrMisp), c.get(ev::kBrMisp) + c.get(ev::kMachineClears));
  if (!share) return;
  m.branch_mispredicts = *share * *m.bad_speculation;
  m.machine_clears = *m.bad_speculation - *m.branch_mispredicts;
  if (clamp) m.machine_clears = std::max(0.0, *m.machine_clears);
}

// The level-1 slot counts perf reads from PERF_METRICS (topdown-* events) over their sum. PAPI
// 7.0 cannot open those kernel events, so the tables count the general-purpose events that
// count the same slots (Intel SDM: PERF_METRICS holds the fractions of TOPDOWN.SLOTS that these
// events count), with TOPDOWN.SLOTS as the sum.
struct SlotCounts {
  double fe = 0, be = 0, ret = 0, sum = 0;
  const char *fetch_lat = nullptr, *br_mispredict = nullptr, *mem_bound = nullptr;  // SPR level 2
  bool perf_metrics = false;
};

bool slot_counts(TopdownMetrics& m, const Counts& c, bool spr, SlotCounts* s) {
  if (c.missing({ev::kTdRetiring, ev::kTdBadSpec, ev::kTdFeBound, ev::kTdBeBound}).empty()) {
    s->sum = c.get(ev::kTdRetiring) + c.get(ev::kTdBadSpec) + c.get(ev::kTdFeBound) + c.get(ev::kTdBeBound);
    if (s->sum > 0) {
      *s = {c.get(ev::kTdFeBound), c.get(ev::kTdBeBound), c.get(ev::kTdRetiring), s->sum,
            ev::kTdFetchLat, ev::kTdBrMispredict, ev::kTdMemBound, true};
      return true;
    }
  }
  if (fail(m, c.missing({ev::kSlots, ev::kUopsRetiredSlots, ev::kIdqNotDelivered, ev::kBackendSlots}))) return false;
  *s = {c.get(ev::kIdqNotDelivered), c.get(ev::kBackendSlots), c.get(ev::kUopsRetiredSlots), c.get(ev::kSlots),
        nullptr, spr ? ev::kBrMispSlots : nullptr, spr ? ev::kMemBoundSlots : nullptr, false};
  return true;
}

}  // namespace

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
  m.remainder = "Backend Bound";
  m.ok = true;
  if (c.has(ev::kIdqCycles0)) {
    m.fetch_latency = 4 * c.get(ev::kIdqCycles0) / slots;
    m.fetch_bandwidth = *m.frontend_bound - *m.fetch_latency;
  }
  split_bad_speculation_by_clears(m, c, false);
  intel_backend_split(m, c, false);
  set_freq_ipc(m, c, ev::kInst, ev::kClk);
}

// Ice Lake (icx-metrics.json) and Sapphire Rapids (spr-metrics.json). Frontend gives back the
// uops dropped after delivery (INT_MISC.UOP_DROPPING); on Ice Lake Backend takes 5 slots per
// clear recovery (INT_MISC.CLEARS_COUNT); Bad Speculation is what the other three leave, never
// below 0.
void icelake_or_later(TopdownMetrics& m, const Counts& c, int width, bool spr) {
  SlotCounts s;
  if (!slot_counts(m, c, spr, &s)) return;
  if (fail(m, c.missing(spr ? std::initializer_list<const char*>{ev::kSlots, ev::kUopDropping}
                            : std::initializer_list<const char*>{ev::kSlots, ev::kUopDropping, ev::kClearsCount})))
    return;
  const double slots = c.get(ev::kSlots);
  if (slots <= 0 || s.sum <= 0) return (void)fail(m, std::string(ev::kSlots) + " is zero");
  const double dropped = c.get(ev::kUopDropping) / slots;
  m.from_perf_metrics = s.perf_metrics;
  m.frontend_bound = s.fe / s.sum - dropped;
  m.backend_bound = s.be / s.sum + (spr ? 0.0 : 5 * c.get(ev::kClearsCount) / slots);
  m.retiring = s.ret / s.sum;
  m.bad_speculation = std::max(1 - (*m.frontend_bound + *m.backend_bound + *m.retiring), 0.0);
  m.remainder = "Bad Speculation";
  m.ok = true;
  // Level 2. Fetch Latency: the kernel's topdown-fetch-lat (SPR), else width slots per cycle
  // with no uop delivered.
  if (s.fetch_lat && c.has(s.fetch_lat)) {
    m.fetch_latency = c.get(s.fetch_lat) / s.sum - dropped;
  } else if (c.has(ev::kIdqCycles0)) {
    m.fetch_latency = width * c.get(ev::kIdqCycles0) / slots - dropped;
  }
  if (m.fetch_latency) m.fetch_bandwidth = std::max(0.0, *m.frontend_bound - *m.fetch_latency);
  if (spr && s.br_mispredict && c.has(s.br_mispredict)) {
    m.branch_mispredicts = c.get(s.br_mispredict) / s.sum;
    m.machine_clears = std::max(0.0, *m.bad_speculation - *m.branch_mispredicts);
  } else if (!spr) {
    split_bad_speculation_by_clears(m, c, true);
  }
  if (spr && s.mem_bound && c.has(s.mem_bound)) {
    m.memory_bound = c.get(s.mem_bound) / s.sum;
    m.core_bound = std::max(0.0, *m.backend_bound - *m.memory_bound);
  } else if (!spr) {
    intel_backend_split(m, c, true);
  }
  set_freq_ipc(m, c, ev::kInst, ev::kClk);
}

}  // namespace hpcsens::topdown::detail
