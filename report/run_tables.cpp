// The tables of a run record: job facts, summary (timing bounds, imbalance), ranks, the
// distribution over ranks and MPI time by call. Pure functions of the record's scan.
#include <fmt/core.h>

#include <algorithm>
#include <map>

#include "common/human_units.h"
#include "energy/energy_text.h"
#include "mpi/imbalance.h"
#include "report/byte_direction.h"
#include "report/memory_view.h"
#include "report/mpi_aggregate.h"
#include "report/run_report.h"

namespace hpcsens::report {
namespace {

using record::RankRecord;
using record::RunRecord;

std::vector<mpi::RankTimes> times_of(const RunScan& s) {
  std::vector<mpi::RankTimes> times;
  times.reserve(s.rows.size());
  for (const auto& r : s.rows) times.push_back({r.rank, r.wall_s, r.compute_s});
  return times;
}

// Rank numbers as text, at most `limit` of them, then "(+N more)".
std::string rank_list(const std::vector<int>& ranks, std::size_t limit = 16) {
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < ranks.size() && i < limit; ++i) parts.push_back(std::to_string(ranks[i]));
  std::string out = join(parts, " ");
  if (ranks.size() > limit) out += fmt::format(" (+{} more)", ranks.size() - limit);
  return out;
}

}  // namespace

// Older or hand-made records may lack the imbalance section; it is a pure function of ranks.
// Always from ranks[]: derived numbers are recomputed, never trusted from the file.
record::Imbalance imbalance_of(const RunRecord& rec) {
  std::vector<mpi::RankTimes> times;
  times.reserve(rec.ranks.size());
  for (const auto& r : rec.ranks) times.push_back({r.rank, r.wall_s, r.compute_s});
  return mpi::imbalance_of(times);
}

record::Imbalance imbalance_of(const RunScan& s) { return mpi::imbalance_of(times_of(s)); }

namespace {
// The record's preload.net_delay object, or null.
const nlohmann::json* net_delay_of(const RunRecord& rec) {
  const auto p = rec.extra.find("preload");
  if (p == rec.extra.end() || !p->is_object() || !p->contains("net_delay")) return nullptr;
  const auto& nd = p->at("net_delay");
  return nd.is_object() ? &nd : nullptr;
}
}  // namespace

std::string net_delay_added(const RunRecord& rec) {
  const nlohmann::json* nd = net_delay_of(rec);
  if (nd == nullptr || !nd->value("applied", false)) return "";
  std::string text = fmt::format("+{} us per message", nd->value("added_latency_us", 0.0));
  if (nd->value("added_ns_per_byte", 0.0) > 0)
    text += fmt::format(", +{:.4g} ns per byte (a {} GB/s link)", nd->value("added_ns_per_byte", 0.0),
                        nd->value("added_bandwidth_gbs", 0.0));
  return text;
}

// The network-delay knob's delays are inside the record's MPI times: a reader must not take
// them for the machine's network (issue 21; preload.net_delay in record-format.md).
std::string net_delay_text(const RunRecord& rec) {
  const nlohmann::json* nd = net_delay_of(rec);
  if (nd == nullptr) return "";
  if (!nd->value("applied", false)) return "off (unusable setting: " + nd->value("error", std::string("?")) + ")";
  std::string text = "ADDED by the knob, inside every MPI time below: " + net_delay_added(rec);
  if (nd->contains("scope") && (*nd)["scope"].is_string()) text += "; " + (*nd)["scope"].get<std::string>();
  return text + fmt::format("; achieved {:.3f} x requested", nd->value("achieved_factor", 1.0));
}

Table job_table(const RunRecord& rec) {
  Table t;
  t.title = rec.emulated ? "Job (EMULATED record: numbers come from a model, not a measurement)"
                         : "Job";
  t.header = {"field", "value"};
  t.rows.push_back({"command", join(rec.job.command, " ")});
  t.rows.push_back({"launcher", rec.job.launcher});
  t.rows.push_back({"ranks", std::to_string(rec.job.nranks)});
  std::vector<std::string> hosts(rec.job.hosts.begin(),
                                 rec.job.hosts.begin() + static_cast<std::ptrdiff_t>(
                                     std::min<std::size_t>(rec.job.hosts.size(), 8)));
  std::string host_text = join(hosts, " ");
  if (rec.job.hosts.size() > 8) host_text += fmt::format(" (+{} more)", rec.job.hosts.size() - 8);
  t.rows.push_back({"hosts", host_text});
  t.rows.push_back({"MPI library", rec.job.mpi_library});
  t.rows.push_back({"start (UTC)", rec.job.start_utc});
  t.rows.push_back({"complete", rec.complete ? "yes" : "NO (some ranks did not reach MPI_Finalize)"});
  t.rows.push_back({"counters_status", rec.counters_status});
  if (const std::string nd = net_delay_text(rec); !nd.empty()) t.rows.push_back({"network delay", nd});
  if (rec.emulated) t.rows.push_back({"emulated", "yes"});
  if (const auto e = rec.extra.find("energy"); e != rec.extra.end())  // what hpcsens run's node reader saw
    t.rows.push_back({"energy (RAPL)", energy::energy_summary(*e, rec.job.hosts)});
  if (const auto e = rec.extra.find("energy"); e != rec.extra.end())
    if (const std::string slurm = energy::slurm_energy_summary(*e); !slurm.empty()) t.rows.push_back({"energy (Slurm)", slurm});
  for (const auto& [k, v] : rec.config.items())
    t.rows.push_back({"config." + k, v.is_string() ? v.get<std::string>() : v.dump()});
  return t;
}

Table summary_table(const RunScan& s) {
  const RunRecord& rec = s.header;
  const auto im = imbalance_of(s);
  Table t;
  t.title = "Summary";
  t.header = {"metric", "value", "unit"};
  t.numeric = {false, true, false};
  t.rows.push_back({rec.complete ? "job time bound, min over ranks of t3-t0"
                                  : "job time (INCOMPLETE: longest rank span, a lower bound)",
                    fixed(rec.timing.job_s, 6), "s"});
  t.rows.push_back({"job time, max t2 - min t1 (one clock)",
                    rec.timing.job_sync_s ? fixed(*rec.timing.job_sync_s, 6) : "-",
                    rec.timing.job_sync_s ? "s" : "s (clocks not comparable)"});
  t.rows.push_back({"barrier cost (the two timing barriers)", fixed(rec.timing.barrier_s, 6), "s"});
  t.rows.push_back({"timing method", rec.timing.method, ""});
  if (!s.rows.empty()) {  // no ranks, no statistics (not zeros)
    t.rows.push_back({"compute per rank: mean", fixed(im.mean_s, 6), "s"});
    t.rows.push_back({"compute per rank: min", fixed(im.min_s, 6), "s"});
    t.rows.push_back({"compute per rank: max", fixed(im.max_s, 6), "s"});
    t.rows.push_back({"imbalance max/mean of compute", fixed(im.max_over_mean, 3), "ratio"});
    t.rows.push_back({"load-balance efficiency (mean/max)", fixed(im.lbe, 3), "fraction"});
    t.rows.push_back({"communication efficiency (max compute/wall)", fixed(im.comm_eff, 3), "fraction"});
    t.rows.push_back({"coefficient of variation of compute", fixed(im.cov, 3), "fraction"});
    t.rows.push_back({"slowest ranks (most compute first)", rank_list(im.slowest), "rank"});
    for (auto& row : mpi_summary_rows(mpi_aggregate(s))) t.rows.push_back(std::move(row));
  }
  for (auto& row : memory_summary_rows(s.measure.memory)) t.rows.push_back(std::move(row));
  std::uint64_t read = 0, written = 0;
  double io_s = 0;
  for (const auto& r : s.rows) {
    read += r.io_bytes_read;
    written += r.io_bytes_written;
    io_s += r.io_s;
  }
  t.rows.push_back({"I/O time, all ranks", fixed(io_s, 6), "s"});
  t.rows.push_back({"I/O bytes read / written, all ranks",
                    human::bytes(static_cast<double>(read)) + " / " + human::bytes(static_cast<double>(written)), ""});
  std::vector<int> incomplete;
  for (const auto& r : s.rows)
    if (!r.complete) incomplete.push_back(r.rank);
  t.rows.push_back({"incomplete ranks (no MPI_Finalize)", incomplete.empty() ? "none" : rank_list(incomplete),
                    "rank"});
  if (rec.job.nranks > 0 && static_cast<std::size_t>(rec.job.nranks) > s.rows.size())
    t.rows.push_back({"ranks without any record",
                      std::to_string(static_cast<std::size_t>(rec.job.nranks) - s.rows.size()), "ranks"});
  return t;  // counters_status is in the job table; a long reason would widen every row here
}

Table rank_table(const RunScan& s, const std::vector<std::size_t>& indices, const std::string& title) {
  Table t;
  t.title = title;
  t.header = {"rank", "host", "wall [s]", "compute [s]", "MPI [s]", "I/O [s]", "MPI [%]", "top MPI calls"};
  t.numeric = {true, false, true, true, true, true, true, false};
  t.rows.reserve(indices.size());
  for (std::size_t i : indices) {
    const RankRecord r = s.rank_detail(s.rows[i]);  // the few ranks listed in full
    const double pct = r.wall_s > 0 ? 100.0 * r.mpi_s / r.wall_s : 0.0;
    std::string rank = std::to_string(r.rank);
    if (!r.complete) rank += "*";
    t.rows.push_back({rank, r.host, fixed(r.wall_s, 4), fixed(r.compute_s, 4), fixed(r.mpi_s, 4),
                      fixed(r.io_s, 4), fixed(pct, 1), top_calls(r)});
  }
  return t;
}

Table volume_table(const RunScan& s, std::vector<std::size_t> indices, Format format) {
  std::sort(indices.begin(), indices.end(), [&](std::size_t a, std::size_t b) { return s.rows[a].rank < s.rows[b].rank; });
  indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
  Table t{"MPI bytes per rank: point-to-point (and RMA) sent, received; collectives contributed",
          {"rank", "p2p sent", "p2p received", "collective bytes"}, {}, {true, true, true, true}};
  const auto text = [&](std::uint64_t b) {
    return format == Format::kCsv ? std::to_string(b) : human::bytes(static_cast<double>(b));
  };
  bool any = false;
  for (std::size_t i : indices) {
    const RankRecord r = s.rank_detail(s.rows[i]);
    RankVolume v;
    for (const auto& [name, c] : r.mpi_calls) add_call_volume(v, name, c.bytes, c.bytes_received);
    any = any || v.p2p_sent + v.p2p_received + v.collective > 0;
    t.rows.push_back({std::to_string(r.rank), text(v.p2p_sent), text(v.p2p_received), text(v.collective)});
  }
  if (!any) t.rows.clear();
  return t;
}

Table distribution_table(const RunScan& s) {
  std::vector<double> compute, wall, mpi;
  compute.reserve(s.rows.size());
  wall.reserve(s.rows.size());
  mpi.reserve(s.rows.size());
  for (const auto& r : s.rows) {
    compute.push_back(r.compute_s);
    wall.push_back(r.wall_s);
    mpi.push_back(r.mpi_s);
  }
  Table t;
  t.title = fmt::format("Distribution over {} ranks", s.rows.size());
  t.header = {"quantity", "min [s]", "q1 [s]", "median [s]", "q3 [s]", "max [s]"};
  t.numeric = {false, true, true, true, true, true};
  auto row = [&](const char* name, std::vector<double>& v) {
    const auto d = distribution_of(std::move(v));
    t.rows.push_back({name, fixed(d.min, 4), fixed(d.q1, 4), fixed(d.median, 4), fixed(d.q3, 4),
                      fixed(d.max, 4)});
  };
  row("compute", compute);
  row("MPI", mpi);
  row("wall", wall);
  return t;
}

Table mpi_call_table(const RunScan& s, std::size_t top) {
  std::vector<CallTotal> rows = s.calls;
  double all_mpi = 0;
  for (const auto& c : rows) all_mpi += c.seconds;
  std::sort(rows.begin(), rows.end(), [](const CallTotal& a, const CallTotal& b) {
    return a.seconds != b.seconds ? a.seconds > b.seconds : a.name < b.name;
  });
  const std::size_t shown = top == 0 ? rows.size() : std::min(top, rows.size());
  Table t;
  t.title = shown < rows.size() ? fmt::format("MPI time by call ({} of {} calls; --all lists every call)", shown,
                                              rows.size())
                                : "MPI time by call";
  // Sent and received apart: one column of both would count each message twice when summed.
  t.header = {"call", "calls", "time [s]", "mean per rank [s]", "max per rank [s]", "max on rank",
              "bytes sent", "bytes received", "share of MPI [%]"};
  t.numeric = {false, true, true, true, true, true, true, true, true};
  const double n = s.rows.empty() ? 1.0 : static_cast<double>(s.rows.size());
  for (std::size_t i = 0; i < shown; ++i) {
    const CallTotal& a = rows[i];
    t.rows.push_back({a.name, std::to_string(a.count), fixed(a.seconds, 4), fixed(a.seconds / n, 4),
                      fixed(a.max_s, 4), std::to_string(a.max_rank), std::to_string(a.bytes_sent),
                      std::to_string(a.bytes_received),
                      fixed(all_mpi > 0 ? 100.0 * a.seconds / all_mpi : 0.0, 1)});
  }
  return t;
}

Table summary_table(const RunRecord& rec) { return summary_table(scan_of(rec)); }
Table rank_table(const RunRecord& rec, const std::vector<std::size_t>& indices, const std::string& title) {
  return rank_table(scan_of(rec), indices, title);
}
Table distribution_table(const RunRecord& rec) { return distribution_table(scan_of(rec)); }
Table mpi_call_table(const RunRecord& rec, std::size_t top) { return mpi_call_table(scan_of(rec), top); }

}  // namespace hpcsens::report
