#include "report/timeline_section.h"

#include <fmt/core.h>

#include <algorithm>

#include "common/human_units.h"
#include "report/html_page.h"

namespace hpcsens::report {
namespace {

using nlohmann::json;

std::string percent(double part, double whole) { return whole > 0 ? fmt::format("{:.1f}%", 100 * part / whole) : "-"; }

std::string resolution_line(const std::vector<RankTimeline>& ranks) {
  double lo = ranks.front().bin_s, hi = lo;
  std::size_t bins = 0;
  for (const auto& r : ranks) lo = std::min(lo, r.bin_s), hi = std::max(hi, r.bin_s), bins = std::max(bins, r.mpi_s.size());
  const std::string width = hi - lo <= 1e-6 * hi ? fmt::format("{:.4g} s", lo) : fmt::format("{:.4g} to {:.4g} s", lo, hi);
  return fmt::format("Timeline: {} rank(s), up to {} bins of {} each (the MPI_Init thread; bins merge in pairs as "
                     "the run grows, so a bin is 1/256 to 1/128 of the run).",
                     ranks.size(), bins, width);
}

// Resident memory over the run: one line per rank (the first kMemoryLines), in MiB.
inline constexpr std::size_t kMemoryLines = 16;
json memory_chart(const std::vector<RankTimeline>& ranks) {
  std::vector<json> series;
  std::size_t sampled = 0;
  for (const auto& r : ranks) {
    if (r.rss_kib.empty() || ++sampled > kMemoryLines) continue;
    json points = json::array();
    for (std::size_t i = 0; i < r.rss_kib.size(); ++i)
      points.push_back({{"x", r.bin_s * (static_cast<double>(i) + 0.5)}, {"y", static_cast<double>(r.rss_kib[i]) / 1024}});
    series.push_back(html::series(fmt::format("rank {}", r.rank), points, {{"line", true}}));
  }
  if (series.empty()) return json();
  json chart = html::xy_chart("Resident memory per rank over the run (sampled once per bin)", "time since MPI_Init [s]",
                              "resident memory [MiB]", series);
  if (sampled > kMemoryLines)
    chart["note"] = fmt::format("The first {} of {} ranks; every rank's samples are in the record (ranks[].timeline.rss_kib).",
                                kMemoryLines, sampled);
  return chart;
}

}  // namespace

Table timeline_phase_table(const std::vector<RankTimeline>& ranks) {
  Table t;
  if (ranks.empty()) return t;
  t.title = "Timeline phases (all ranks)";
  t.header = {"from [s]", "to [s]", "mostly", "compute", "MPI", "I/O", "main MPI call", "marks"};
  t.numeric = {true, true, false, true, true, true, false, false};
  const auto phases = timeline_phases(ranks);
  const bool memory = std::any_of(phases.begin(), phases.end(), [](const Phase& p) { return p.rss_kib >= 0; });
  if (memory) t.header.push_back("memory (sum of ranks' RSS, peak)"), t.numeric.push_back(true);
  for (const auto& p : phases) {
    const double all = p.compute_s + p.mpi_s + p.io_s;
    t.rows.push_back({fixed(p.start_s, 3), fixed(p.end_s, 3), p.burst ? p.activity + " burst" : p.activity,
                      percent(p.compute_s, all), percent(p.mpi_s, all), percent(p.io_s, all),
                      p.top_mpi.empty() ? "-" : p.top_mpi, p.marks.empty() ? "-" : join(p.marks, " ")});
    if (memory) t.rows.back().push_back(p.rss_kib >= 0 ? human::bytes(p.rss_kib * 1024) : "-");
  }
  return t;
}

std::string timeline_text(const std::vector<RankTimeline>& ranks, Format format) {
  if (ranks.empty()) return "";
  return resolution_line(ranks) + "\n" + render(timeline_phase_table(ranks), format);
}

json timeline_html_section(const std::vector<RankTimeline>& ranks) {
  if (ranks.empty()) return json();
  json s = html::section("Timeline: compute, MPI and I/O per rank over the run");
  s["text"].push_back(resolution_line(ranks));
  if (ranks.size() <= kHeatMapRanks) {
    json rows = json::array(), marks = json::array(), numbers = json::array();
    double span = 0;
    const RankTimeline* marked = nullptr;
    for (const auto& r : ranks) {
      rows.push_back({{"rank", r.rank}, {"bin_s", r.bin_s}, {"compute_s", r.compute_s}, {"mpi_s", r.mpi_s},
                      {"io_s", r.io_s}, {"top_mpi", r.top_mpi}});
      span = std::max(span, r.bin_s * static_cast<double>(r.mpi_s.size()));
      if (!r.marks.empty() && (!marked || r.rank == 0)) marked = &r;
      double c = 0, m = 0, o = 0;
      for (std::size_t i = 0; i < r.mpi_s.size(); ++i) c += r.compute_s[i], m += r.mpi_s[i], o += r.io_s[i];
      numbers.push_back({r.rank, r.mpi_s.size(), r.bin_s, c, m, o});
    }
    if (marked)
      for (const auto& m : marked->marks) marks.push_back({{"t_s", m.t_s}, {"phase", m.phase}});
    json chart = {{"type", "heatmap"}, {"title", "Ranks x time: colour = share of compute (blue), MPI (red), I/O (green)"},
                  {"x", "time since MPI_Init [s]"}, {"y", "rank"}, {"series", json::array()}, {"rows", rows},
                  {"marks", marks}, {"span_s", span}, {"height", std::clamp<std::size_t>(ranks.size() * 14 + 80, 200, 720)}};
    chart["numbers"] = {{"header", {"rank", "bins", "bin width [s]", "compute [s]", "MPI [s]", "I/O [s]"}},
                        {"rows", numbers}, {"numeric", {true, true, true, true, true, true}}};
    if (marked) chart["note"] = fmt::format("Dashed lines: phase marks (MPI_Pcontrol, regions) of rank {}.", marked->rank);
    s["charts"].push_back(std::move(chart));
    if (json memory = memory_chart(ranks); !memory.is_null()) s["charts"].push_back(std::move(memory));
  } else {
    s["text"].push_back(fmt::format("{} ranks: too many for a heat map; every rank's bins are in the record "
                                    "(ranks[].timeline) and in `--format csv --table timeline`.", ranks.size()));
  }
  s["tables"].push_back(html::table_json(timeline_phase_table(ranks)));
  return s;
}

}  // namespace hpcsens::report
