#include "report/timeline_view.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "common/errors.h"
#include "report/table.h"
#include "report/timeline_phases.h"

namespace hpcsens::report {
namespace {

using nlohmann::json;

std::vector<double> seconds_array(const json& t, const char* key, std::size_t bins, const std::string& where) {
  const auto it = t.find(key);
  if (it == t.end() || !it->is_array() || it->size() != bins)
    throw InputError(where + "." + key, fmt::format("expected an array of {} numbers (one per bin)", bins));
  std::vector<double> out;
  out.reserve(bins);
  for (const auto& v : *it) {
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0)
      throw InputError(where + "." + key, "holds a value that is not a number of seconds >= 0");
    out.push_back(v.get<double>());
  }
  return out;
}

std::vector<std::string> bin_top_calls(const json& t, std::size_t bins, const std::string& where) {
  const auto calls = t.find("calls");
  const auto top = t.find("top_mpi");
  if (calls == t.end() || !calls->is_array() || top == t.end() || !top->is_array() || top->size() != bins)
    throw InputError(where + ".top_mpi", fmt::format("expected 'calls' (names) and 'top_mpi' ({} indices)", bins));
  std::vector<std::string> out;
  for (const auto& i : *top) {
    const long long k = i.is_number_integer() ? i.get<long long>() : -2;
    if (k == -1) {
      out.emplace_back();
      continue;
    }
    if (k < 0 || static_cast<std::size_t>(k) >= calls->size() || !(*calls)[k].is_string())
      throw InputError(where + ".top_mpi", "holds an index that is not -1 or a position in 'calls'");
    out.push_back((*calls)[k].get<std::string>());
  }
  return out;
}

RankTimeline one_timeline(int rank, const json& t, const std::string& where) {
  if (!t.is_object()) throw InputError(where, "expected an object");
  RankTimeline r;
  r.rank = rank;
  const auto bins = t.find("bins");
  const auto width = t.find("bin_s");
  if (bins == t.end() || !bins->is_number_unsigned() || bins->get<std::uint64_t>() > 4096)
    throw InputError(where + ".bins", "expected a whole number of bins (at most 4096)");
  if (width == t.end() || !width->is_number() || !(width->get<double>() > 0) || !std::isfinite(width->get<double>()))
    throw InputError(where + ".bin_s", "expected a bin width in seconds > 0");
  r.bin_s = width->get<double>();
  const std::size_t n = bins->get<std::size_t>();
  r.compute_s = seconds_array(t, "compute_s", n, where);
  r.mpi_s = seconds_array(t, "mpi_s", n, where);
  r.io_s = seconds_array(t, "io_s", n, where);
  r.top_mpi = bin_top_calls(t, n, where);
  if (const auto m = t.find("marks"); m != t.end() && m->is_array())
    for (const auto& k : *m) {
      if (!k.is_object() || !k.contains("t_s") || !k["t_s"].is_number() || !k.contains("phase") ||
          !k["phase"].is_string())
        throw InputError(where + ".marks", "expected objects {t_s, phase}");
      r.marks.push_back({k["t_s"].get<double>(), k["phase"].get<std::string>()});
    }
  if (const auto rss = t.find("rss_kib"); rss != t.end()) {
    if (!rss->is_array() || rss->size() != n)
      throw InputError(where + ".rss_kib", fmt::format("expected an array of {} KiB values (one per bin)", n));
    for (const auto& v : *rss) {
      if (!v.is_number_integer() || v.get<std::int64_t>() < 0) throw InputError(where + ".rss_kib", "holds a value that is not a whole number of KiB >= 0");
      r.rss_kib.push_back(v.get<std::int64_t>());
    }
  }
  if (const auto d = t.find("marks_dropped"); d != t.end() && d->is_number_unsigned())
    r.marks_dropped = d->get<std::uint64_t>();
  return r;
}

std::string seconds_text(double v) { return fmt::format("{}", v); }

}  // namespace

std::vector<RankTimeline> timelines_of(const json& raw_ranks, const std::string& file) {
  std::vector<RankTimeline> out;
  if (!raw_ranks.is_array()) return out;
  for (const auto& r : raw_ranks) {
    if (!r.is_object() || !r.contains("timeline") || r["timeline"].is_null()) continue;
    const int rank = r.contains("rank") && r["rank"].is_number_integer() ? r["rank"].get<int>() : -1;
    out.push_back(one_timeline(rank, r["timeline"], fmt::format("{}: ranks[rank {}].timeline", file, rank)));
  }
  return out;
}

Grid common_grid(const std::vector<RankTimeline>& ranks) {
  Grid g;
  double span = 0;
  for (const auto& r : ranks) {
    g.cell_s = std::max(g.cell_s, r.bin_s);
    span = std::max(span, r.bin_s * static_cast<double>(r.mpi_s.size()));
  }
  if (g.cell_s <= 0) return g;
  const auto cells = static_cast<std::size_t>(std::ceil(span / g.cell_s - 1e-9));
  g.compute.assign(cells, 0), g.mpi.assign(cells, 0), g.io.assign(cells, 0), g.mpi_by_call.resize(cells);
  for (const auto& r : ranks) {
    if (r.rss_kib.empty()) continue;
    std::vector<double> mine(cells, 0);  // this rank's largest bin in each cell
    for (std::size_t i = 0; i < r.rss_kib.size(); ++i) {
      const auto c = std::min(cells - 1, static_cast<std::size_t>((r.bin_s * (static_cast<double>(i) + 0.5)) / g.cell_s));
      mine[c] = std::max(mine[c], static_cast<double>(r.rss_kib[i]));
    }
    if (g.rss_kib.empty()) g.rss_kib.assign(cells, 0);
    for (std::size_t c = 0; c < cells; ++c) g.rss_kib[c] += mine[c];
  }
  for (const auto& r : ranks)
    for (std::size_t i = 0; i < r.mpi_s.size(); ++i) {
      const double a = r.bin_s * static_cast<double>(i), b = a + r.bin_s;
      for (auto c = static_cast<std::size_t>(a / g.cell_s); c < cells && g.cell_s * static_cast<double>(c) < b; ++c) {
        const double lo = std::max(a, g.cell_s * static_cast<double>(c));
        const double f = std::max(0.0, std::min(b, g.cell_s * static_cast<double>(c + 1)) - lo) / r.bin_s;
        g.compute[c] += f * r.compute_s[i], g.mpi[c] += f * r.mpi_s[i], g.io[c] += f * r.io_s[i];
        if (!r.top_mpi[i].empty()) {
          auto& calls = g.mpi_by_call[c];
          auto it = std::find_if(calls.begin(), calls.end(), [&](const auto& p) { return p.first == r.top_mpi[i]; });
          if (it == calls.end()) calls.emplace_back(r.top_mpi[i], f * r.mpi_s[i]);
          else it->second += f * r.mpi_s[i];
        }
      }
    }
  return g;
}

namespace {

void finish(Phase& p, const std::map<std::string, double>& calls) {
  // A phase with next to no MPI (a boundary bin's few calls) names no call.
  double best = 0.01 * (p.compute_s + p.mpi_s + p.io_s);
  for (const auto& [name, s] : calls)
    if (s > best) best = s, p.top_mpi = name;
}

// The longest rank's span: its last bin ends at its t2.
double longest_span(const std::vector<RankTimeline>& ranks) {
  double end = 0;
  for (const auto& r : ranks) {
    double s = 0;
    for (std::size_t i = 0; i < r.mpi_s.size(); ++i) s += r.compute_s[i] + r.mpi_s[i] + r.io_s[i];
    end = std::max(end, s);
  }
  return end;
}

}  // namespace

std::vector<Phase> timeline_phases(const std::vector<RankTimeline>& ranks) {
  const Grid g = common_grid(ranks);
  const RankTimeline* marked = nullptr;  // rank 0's marks, else the first rank's that has some
  for (const auto& r : ranks)
    if (!r.marks.empty() && (!marked || r.rank == 0)) marked = &r;
  const double end = longest_span(ranks);
  std::vector<Phase> out;
  for (const PhaseRun& run : phase_runs(g)) {
    const std::size_t first = run.first, last = run.last;
    Phase p;
    p.activity = run.activity;
    p.burst = run.burst;
    p.start_s = g.cell_s * static_cast<double>(first);
    p.end_s = last == g.mpi.size() ? std::max(end, p.start_s) : g.cell_s * static_cast<double>(last);
    std::map<std::string, double> calls;
    for (std::size_t c = first; c < last; ++c) {
      p.compute_s += g.compute[c], p.mpi_s += g.mpi[c], p.io_s += g.io[c];
      for (const auto& [name, s] : g.mpi_by_call[c]) calls[name] += s;
      if (!g.rss_kib.empty()) p.rss_kib = std::max(p.rss_kib, g.rss_kib[c]);
    }
    finish(p, calls);
    if (marked)
      for (const auto& m : marked->marks)
        // A mark up to half a cell before a phase starts it (the phase edge is on the grid).
        if (m.t_s >= p.start_s - (first > 0 ? g.cell_s / 2 : 0) &&
            (m.t_s < p.end_s - g.cell_s / 2 || last == g.mpi.size()))
          p.marks.push_back(m.phase);
    out.push_back(std::move(p));
  }
  return out;
}

std::string timeline_csv(const std::vector<RankTimeline>& ranks) {
  std::string out = "rank,bin,start_s,end_s,compute_s,mpi_s,io_s,top_mpi,rss_kib\n";
  for (const auto& r : ranks)
    for (std::size_t i = 0; i < r.mpi_s.size(); ++i)
      // rss_kib empty where the rank's memory was not sampled (the record has no rss_kib).
      out += fmt::format("{},{},{},{},{},{},{},{},{}\n", r.rank, i, seconds_text(r.bin_s * static_cast<double>(i)),
                         seconds_text(r.bin_s * static_cast<double>(i + 1)), seconds_text(r.compute_s[i]), seconds_text(r.mpi_s[i]),
                         seconds_text(r.io_s[i]), csv_cell(r.top_mpi[i]), i < r.rss_kib.size() ? std::to_string(r.rss_kib[i]) : "");
  return out;
}

}  // namespace hpcsens::report
