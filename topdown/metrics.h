#pragma once
// Raw counts -> Top-Down level-1 / level-2 fractions, per microarchitecture (pure functions).
// Formulas and their sources: topdown/event_tables.h and docs/methodology.md "Top-Down analysis".
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "topdown/event_tables.h"

namespace hpcsens::topdown {

// Values outside [0, 1] by more than this are mismeasured (multiplexing, counter skew, wrong
// table); values outside by less are clamped for display.
inline constexpr double kMismeasureTolerance = 0.05;

// Flag thresholds. Level 1: upper ends of the VTune cookbook's typical ranges for HPC hotspots
// (Retiring 30-70 %, Backend 20-40 %, Frontend 5-10 %, Bad Speculation 1-5 %). Level 2: perf's
// TMA MetricThreshold values (tma_memory_bound > 0.2, tma_core_bound > 0.1, tma_fetch_latency
// > 0.1, tma_fetch_bandwidth > 0.1, tma_branch_mispredicts > 0.1, tma_machine_clears > 0.1).
struct Thresholds {
  double frontend = 0.10, bad_speculation = 0.05, backend = 0.40, retiring_low = 0.30;
  double memory = 0.20, core = 0.10, fetch_latency = 0.10, fetch_bandwidth = 0.10;
  double branch_mispredicts = 0.10, machine_clears = 0.10;
  // Stall-cycle ratios (Zen 3, Neoverse N1): fraction of cycles, not slots.
  double frontend_stalls = 0.10, backend_stalls = 0.40;
};

struct TopdownMetrics {
  std::string table;              // event-set name the formulas came from
  Method method = Method::kSlots;
  bool ok = false;                // level 1 computed from the counters
  std::string why_not;            // when !ok: which events are missing
  // Level 1 (fractions of slots; raw, not clamped)
  std::optional<double> retiring, bad_speculation, frontend_bound, backend_bound;
  std::optional<double> smt_contention;  // AMD Zen 4/5: slots lost to the sibling thread
  // Level 2 (fractions of all slots; children of the level-1 node named in the comment)
  std::optional<double> memory_bound, core_bound;             // Backend Bound
  std::optional<double> fetch_latency, fetch_bandwidth;       // Frontend Bound
  std::optional<double> branch_mispredicts, machine_clears;   // Bad Speculation
  // Stall-cycle ratios (Method::kStallRatios)
  std::optional<double> frontend_stalls, backend_stalls;
  std::optional<double> ipc;  // instructions per (thread) cycle
  std::optional<double> ghz;  // cycles / task-clock: achieved frequency
  std::vector<std::string> mismeasured;  // "Backend Bound = -0.31", ...
  bool from_perf_metrics = false;        // Ice Lake+: used the kernel topdown-* events
  // The level-1 node computed as what the others leave ("Backend Bound" on Skylake, "Bad
  // Speculation" on Ice Lake and later); nullptr where every node is measured.
  const char* remainder = nullptr;
};

// Computes metrics for counters recorded with the table named `event_set`. Event names may carry
// a libpfm4 PMU prefix ("skx::UOPS_ISSUED:ANY"); it is ignored.
TopdownMetrics compute_metrics(std::string_view event_set, const std::map<std::string, double>& counters);
// The same with the table already looked up (table_by_name(event_set)): looking it up copies the
// table, which dominated reports of 100,000-rank jobs.
TopdownMetrics compute_metrics(const TopdownTable& table, std::string_view event_set,
                               const std::map<std::string, double>& counters);

// A rank whose counter session failed (`status` is its counters_status): nothing derived from its
// counts is kept, fractions, IPC and frequency alike, since the counts that did arrive may be
// partial.
void mark_counters_failed(TopdownMetrics& m, const std::string& status);

// A rank whose counts were multiplexed (time-sliced): a remainder node mixes time slices and can
// be off by tens of points, so the rank is marked mismeasured with that reason instead of shown
// as a breakdown with a note. Nothing changes for tables without a remainder.
void refuse_multiplexed_remainder(TopdownMetrics& m);

// The flagged path with hierarchical safety: a level-2 node appears only under a flagged level-1
// parent. Empty when nothing is flagged or the values are mismeasured.
// E.g. {"Backend Bound", "Memory Bound"}.
std::vector<std::string> flagged_path(const TopdownMetrics& m, const Thresholds& t = {});

// "Backend > Memory" style text for a path; "none" when empty.
std::string path_text(const std::vector<std::string>& path);

}  // namespace hpcsens::topdown
