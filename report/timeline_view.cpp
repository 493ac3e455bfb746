#include "report/timeline_view.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "common/errors.h"
#include "report/table.h"

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

std::string activity(double compute, double mpi, double io) {
  return compute >= mpi && compute >= io ? "compute" : mpi >= io ? "MPI" : "I/O";
}

std::string range_activity(const Grid& g, std::size_t first, std::size_t last) {
  double c = 0, m = 0, o = 0;
  for (std::size_t i = first; i < last; ++i) c += g.compute[i], m += g.mpi[i], o += g.io[i];
  return activity(c, m, o);
}

void finish(Phase& p, const std::map<std::string, double>& calls) {
  double best = 0;
  for (const auto& [name, s] : calls)
    if (s > best) best = s, p.top_mpi = name;
  p.activity = activity(p.compute_s, p.mpi_s, p.io_s);
}

}  // namespace

std::vector<Phase> timeline_phases(const std::vector<RankTimeline>& ranks) {
  const Grid g = common_grid(ranks);
  // Runs of one activity; a run under two cells is noise at a boundary and joins the one before.
  std::vector<std::pair<std::size_t, std::size_t>> runs;  // [first, last) cells
  for (std::size_t c = 0; c < g.mpi.size(); ++c) {
    const std::string a = activity(g.compute[c], g.mpi[c], g.io[c]);
    if (!runs.empty() && activity(g.compute[runs.back().first], g.mpi[runs.back().first], g.io[runs.back().first]) == a)
      runs.back().second = c + 1;
    else
      runs.emplace_back(c, c + 1);
  }
  // A short run joins the phase before it; a run like the phase before extends it.
  std::vector<std::pair<std::size_t, std::size_t>> merged;
  for (const auto& run : runs) {
    if (!merged.empty() && (run.second - run.first < 2 || range_activity(g, merged.back().first, run.first) ==
                                                              range_activity(g, run.first, run.second)))
      merged.back().second = run.second;
    else
      merged.push_back(run);
  }
  const RankTimeline* marked = nullptr;  // rank 0's marks, else the first rank's that has some
  for (const auto& r : ranks)
    if (!r.marks.empty() && (!marked || r.rank == 0)) marked = &r;
  double end = 0;  // the longest rank's span: its last bin ends at its t2
  for (const auto& r : ranks) {
    double s = 0;
    for (std::size_t i = 0; i < r.mpi_s.size(); ++i) s += r.compute_s[i] + r.mpi_s[i] + r.io_s[i];
    end = std::max(end, s);
  }
  std::vector<Phase> out;
  for (const auto& [first, last] : merged) {
    Phase p;
    p.start_s = g.cell_s * static_cast<double>(first);
    p.end_s = last == g.mpi.size() ? std::max(end, p.start_s) : g.cell_s * static_cast<double>(last);
    std::map<std::string, double> calls;
    for (std::size_t c = first; c < last; ++c) {
      p.compute_s += g.compute[c], p.mpi_s += g.mpi[c], p.io_s += g.io[c];
      for (const auto& [name, s] : g.mpi_by_call[c]) calls[name] += s;
    }
    finish(p, calls);
    if (marked)
      for (const auto& m : marked->marks)
        if (m.t_s >= p.start_s && (m.t_s < p.end_s || last == g.mpi.size())) p.marks.push_back(m.phase);
    out.push_back(std::move(p));
  }
  return out;
}

std::string timeline_csv(const std::vector<RankTimeline>& ranks) {
  std::string out = "rank,bin,start_s,end_s,compute_s,mpi_s,io_s,top_mpi\n";
  for (const auto& r : ranks)
    for (std::size_t i = 0; i < r.mpi_s.size(); ++i)
      out += fmt::format("{},{},{},{},{},{},{},{}\n", r.rank, i, seconds_text(r.bin_s * static_cast<double>(i)),
                         seconds_text(r.bin_s * static_cast<double>(i + 1)), seconds_text(r.compute_s[i]), seconds_text(r.mpi_s[i]),
                         seconds_text(r.io_s[i]), csv_cell(r.top_mpi[i]));
  return out;
}

}  // namespace hpcsens::report
