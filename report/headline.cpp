#include "report/headline.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "common/human_units.h"
#include "report/oversubscription.h"
#include "report/run_report.h"
#include "report/run_scan.h"

namespace hpcsens::report {
namespace {

using nlohmann::json;

// Thresholds of the run rules (docs/methodology.md, "The answer first").
constexpr double kImbalanced = 1.10;      // compute max/mean at or above: imbalance is the story
constexpr double kWaitingShare = 0.10;    // ... when the other ranks wait at least this much
constexpr double kIoDominant = 0.25;      // I/O at or above this share of the run
constexpr double kMpiDominant = 0.30;     // MPI at or above this share of the ranks' time

std::string pct(double f) { return human::percent(f); }

double io_share(const RunFacts& f) {
  const double spread = f.wall_sum > 0 ? f.io_sum / f.wall_sum : 0;
  // I/O on one rank while the others wait shows as that rank's share of the job time.
  const double one = f.job_s > 0 && f.top_io_rank >= 0 ? f.top_io_rank_share * f.io_sum / f.job_s : 0;
  return std::min(1.0, std::max(spread, one));
}

double mpi_share(const RunFacts& f) { return f.wall_sum > 0 ? f.mpi_sum / f.wall_sum : 0; }
double compute_ratio(const RunFacts& f) { return f.compute_mean > 0 ? f.compute_max / f.compute_mean : 1; }

Answer imbalance_answer(const RunFacts& f) {
  const double more = compute_ratio(f) - 1;
  const double saving = f.job_s > 0 ? std::clamp((f.compute_max - f.compute_mean) / f.job_s, 0.0, 1.0) : 0;
  Answer a;
  a.tone = "caution";
  a.headline = fmt::format("Rank {} computes {} more than the mean; the other ranks spend {} of their time waiting "
                           "in MPI{}; balancing would save up to {} of the run ({}).",
                           f.slowest_rank, pct(more), pct(f.others_mpi_share),
                           f.top_call.empty() ? "" : ", most of it in " + f.top_call, pct(saving),
                           human::seconds(f.compute_max - f.compute_mean));
  a.advice.push_back(fmt::format("Balance the work between ranks: rank {}'s compute is {:.2f}x the mean "
                                 "(load-balance efficiency {:.2f}).",
                                 f.slowest_rank, compute_ratio(f), 1 / compute_ratio(f)));
  if (!f.top_call.empty())
    a.advice.push_back(fmt::format("Look at what rank {} computes before {}: that call holds {} of all MPI time, "
                                   "which is where the other ranks wait.",
                                   f.slowest_rank, f.top_call, pct(f.top_call_share)));
  return a;
}

Answer mpi_answer(const RunFacts& f) {
  Answer a;
  a.tone = "caution";
  a.headline = fmt::format("MPI takes {} of the ranks' time{}; compute is balanced (max/mean {:.2f}).",
                           pct(mpi_share(f)),
                           f.top_call.empty() ? "" : fmt::format(", {} of all MPI time in {}", pct(f.top_call_share), f.top_call),
                           compute_ratio(f));
  if (!f.top_call.empty())
    a.advice.push_back(fmt::format("Send fewer, larger messages or overlap {} with computation (non-blocking "
                                   "calls): it holds {} of MPI time.",
                                   f.top_call, pct(f.top_call_share)));
  a.advice.push_back(fmt::format("Run at fewer ranks and compare: if MPI's {} grows with the rank count, the "
                                 "decomposition communicates too much.",
                                 pct(mpi_share(f))));
  return a;
}

Answer compute_answer(const RunFacts& f) {
  Answer a;
  a.tone = "ok";
  const double share = f.wall_sum > 0 ? f.compute_sum / f.wall_sum : 0;
  a.headline = fmt::format("Compute takes {} of the ranks' time and is balanced (max/mean {:.2f}): the run is bound "
                           "by computation, not by MPI or I/O.",
                           pct(share), compute_ratio(f));
  a.advice.push_back("Find whether core clock or memory bandwidth limits it: hpcsens sweep, then hpcsens fit (the "
                     "model says which resource to buy).");
  if (f.topdown.empty())
    a.advice.push_back("hpcsens run --events topdown names the bottleneck inside the core (where a PMU is available).");
  else if (f.topdown == "ok")
    a.advice.push_back("The Top-Down section below names the bottleneck inside the core.");
  // else Top-Down was asked for and failed here: the section says why; no advice repeats it.
  return a;
}

}  // namespace

Dominant dominant(const RunFacts& f) {
  if (f.ranks == 0 || f.wall_sum <= 0) return Dominant::kNothing;
  if (io_share(f) >= kIoDominant) return Dominant::kIo;
  if (f.ranks > 1 && compute_ratio(f) >= kImbalanced && f.others_mpi_share >= kWaitingShare) return Dominant::kImbalance;
  if (mpi_share(f) >= kMpiDominant) return Dominant::kMpi;
  return Dominant::kCompute;
}

namespace {

// Oversubscribed ranks wait for the scheduler: every time below includes time off the CPU, and
// an imbalance is the scheduler's. Said first, with the ordinary answer kept as unreliable.
Answer oversubscribed_answer(const RunFacts& f, Answer inner) {
  Answer a;
  a.tone = "bad";
  a.headline = fmt::format("Oversubscribed ({}): ranks waited for a CPU, so MPI, compute and imbalance figures are "
                           "unreliable. Unreliable reading: {}",
                           f.oversubscribed, inner.headline);
  a.advice.push_back("Run at most one rank per CPU (fewer ranks, more nodes, or mpirun --map-by core) and measure "
                     "again before acting on the numbers below.");
  for (auto& x : inner.advice) a.advice.push_back(std::move(x));
  a.caveats = std::move(inner.caveats);
  return a;
}

// A run under the network-delay knob (a sweep's point): its MPI time holds delays the knob added,
// so any reading of it is a reading of the emulated network. Said first; the reading is kept.
Answer knob_answer(const RunFacts& f, Answer inner) {
  Answer a;
  a.tone = inner.tone == "bad" ? "bad" : "caution";
  a.headline = fmt::format("The network-delay knob added {} to this run: every MPI time below includes it. "
                           "Reading under that emulated network: {}",
                           f.net_delay_added, inner.headline);
  a.advice.push_back("Compare with the run without the knob (the sweep's base point) before acting on MPI time.");
  for (auto& x : inner.advice) a.advice.push_back(std::move(x));
  a.caveats = std::move(inner.caveats);
  return a;
}

Answer plain_answer(const RunFacts& f) {
  switch (dominant(f)) {
    case Dominant::kIo: return io_answer(f);
    case Dominant::kImbalance: return imbalance_answer(f);
    case Dominant::kMpi: return mpi_answer(f);
    case Dominant::kCompute: return compute_answer(f);
    case Dominant::kNothing: break;
  }
  return {"No rank reported any time: there is nothing to judge (was this an MPI program?).", {}, "bad", {}};
}

}  // namespace

// A job that did not finish is said before any reading of its figures: they end where each rank
// ended, and the first thing to look at is why it stopped. A call a rank was still inside when it was killed (waiting in MPI_Recv for a message that never
// came) never returned, so its time is counted as compute: compute, MPI and balance are not read
// from such a job; an I/O reading stands (its calls' times are what the rank measured).
Answer unfinished_answer(const RunFacts& f, Answer inner) {
  Answer a;
  a.tone = "bad";
  const std::string reading =
      dominant(f) == Dominant::kIo
          ? "Reading of what was measured: " + inner.headline
          : fmt::format("A call a rank was inside when the job ended (a wait in MPI_Recv, say) never returned and "
                        "is counted as compute, so compute, MPI and balance are not judged. Measured until then, "
                        "over all ranks: compute {}, MPI {}, I/O {}.",
                        human::seconds(f.compute_sum), human::seconds(f.mpi_sum), human::seconds(f.io_sum));
  a.headline = fmt::format("The job did not finish: {} of {} ranks never reached MPI_Finalize (aborted, killed or "
                           "crashed), so every figure ends where its rank ended. {}",
                           f.unfinished, std::max(f.job_ranks, f.ranks), reading);
  if (dominant(f) != Dominant::kIo) inner.advice.clear();
  a.caveats = std::move(inner.caveats);
  a.advice.push_back("Find out why it stopped first: the job's own output, its exit status, and the ranks' "
                     "killed_by_signal in the record.");
  for (auto& x : inner.advice) a.advice.push_back(std::move(x));
  return a;
}

Answer run_answer(const RunFacts& f) {
  Answer a = plain_answer(f);
  if (!f.oversubscribed.empty() && dominant(f) != Dominant::kNothing) a = oversubscribed_answer(f, std::move(a));
  if (!f.net_delay_added.empty()) a = knob_answer(f, std::move(a));
  if (f.unfinished > 0) a = unfinished_answer(f, std::move(a));
  return a;
}

namespace {

// "" when no rank asked for a Top-Down set, "ok" when every one that did counted it, else the
// first reason one could not (counters_status: "no PMU ..." and the like).
std::string topdown_state(const RunScan& s) {
  std::string state;
  for (const auto& r : s.rows) {
    if (s.names[r.event_set].rfind("topdown", 0) != 0) continue;
    const std::string& status = s.names[r.counters_status];
    if (status != "ok") return status.empty() ? "not counted" : status;
    state = "ok";
  }
  // "Top-Down unavailable: ..." with no rank's event set; or the run's own counters failed (no PMU,
  // PAPI's perf_event disabled): --events topdown needs those very counters, so no advice says to.
  const std::string& job = s.header.counters_status;
  if (state.empty() && !job.empty() && job != "ok") return job;
  return state;
}

}  // namespace

RunFacts run_facts(const RunScan& s) {
  RunFacts f;
  f.ranks = s.rows.size();
  f.job_s = s.header.timing.job_s;
  f.net_delay_added = net_delay_added(s.header);
  if (!s.header.complete) {
    f.job_ranks = static_cast<std::size_t>(std::max(0, s.header.job.nranks));
    for (const auto& r : s.rows) f.unfinished += r.complete ? 0 : 1;
    f.unfinished = std::max(f.unfinished, f.job_ranks > f.ranks ? f.job_ranks - f.ranks : 0);  // lost ranks too
  }
  double io_max = -1;
  for (const auto& r : s.rows) {
    f.wall_sum += r.wall_s, f.compute_sum += r.compute_s, f.mpi_sum += r.mpi_s, f.io_sum += r.io_s;
    if (r.compute_s > f.compute_max || f.slowest_rank < 0) f.compute_max = r.compute_s, f.slowest_rank = r.rank;
    if (r.io_s > io_max) io_max = r.io_s, f.top_io_rank = r.rank;
  }
  if (f.ranks == 0) return f;
  f.compute_mean = f.compute_sum / static_cast<double>(f.ranks);
  f.top_io_rank_share = f.io_sum > 0 ? io_max / f.io_sum : 0;
  if (f.io_sum <= 0) f.top_io_rank = -1;
  double others = 0;
  for (const auto& r : s.rows)
    if (r.rank != f.slowest_rank) others += r.wall_s > 0 ? r.mpi_s / r.wall_s : 0;
  f.others_mpi_share = f.ranks > 1 ? others / static_cast<double>(f.ranks - 1) : 0;
  double mpi_total = 0, top = -1;
  for (const auto& c : s.calls) {
    mpi_total += c.seconds;
    if (c.seconds > top) top = c.seconds, f.top_call = c.name;
  }
  f.top_call_share = mpi_total > 0 ? top / mpi_total : 0;
  if (mpi_total <= 0) f.top_call.clear();
  double io_total = 0, io_top = -1;
  for (const auto& [name, c] : s.measure.io) {
    io_total += c.seconds;
    if (c.seconds > io_top) io_top = c.seconds, f.top_io_class = name;
  }
  f.top_io_class_share = io_total > 0 ? io_top / io_total : 0;
  if (io_total <= 0) f.top_io_class.clear();
  for (const auto& c : s.io_calls) f.io_ops.add(c.name, c.count, c.seconds, c.bytes);
  f.oversubscribed = oversubscription(s.measure.cpu);
  f.topdown = topdown_state(s);
  return f;
}

answer::Answer shared_answer(const Answer& a) {
  answer::Answer out{a.headline, a.tone, a.caveats, {}};
  for (const auto& x : a.advice) out.advice.push_back({x, ""});
  return out;
}

std::string answer_text(const Answer& a) { return answer::text(shared_answer(a)); }
std::string answer_markdown(const Answer& a) { return answer::markdown(shared_answer(a)); }

}  // namespace hpcsens::report
