// mpiP's per-site tables in the text report, the page and the CSV's columns: each call's
// max/mean/min duration with App% and MPI% ("Callsite Time statistics"), and the bytes of each call
// ("Callsite Message Sent statistics"), per site over ranks.
#include <fmt/core.h>

#include <algorithm>

#include "common/human_units.h"
#include "report/callsite_view.h"

namespace hpcsens::report {
namespace {

double stats_pct(double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0.0; }

std::string ms(double s) { return fixed(s * 1e3, 4); }

}  // namespace

Table callsite_time_table(const std::vector<SiteSummary>& sites, double wall_s, double mpi_s, std::size_t top) {
  Table t;
  t.title = fmt::format("Call-site time statistics (mpiP's): each call's duration, all ranks (top {} of {})",
                        std::min(top, sites.size()), sites.size());
  t.header = {"call site", "call", "calls", "max [ms]", "mean [ms]", "min [ms]", "App%", "MPI%"};
  t.numeric = {false, false, true, true, true, true, true, true};
  for (const SiteSummary& s : sites) {
    if (t.rows.size() == top) break;
    if (!s.has_extremes) continue;  // a record from before per-call extremes
    t.rows.push_back({s.label, s.call, std::to_string(s.count), ms(s.call_max_s), ms(s.mean_call_s()),
                      ms(s.call_min_s), fixed(stats_pct(s.seconds, wall_s), 2), fixed(stats_pct(s.seconds, mpi_s), 2)});
  }
  return t;
}

Table callsite_bytes_table(const std::vector<SiteSummary>& sites, std::size_t top) {
  Table t;
  std::vector<const SiteSummary*> moved;
  for (const SiteSummary& s : sites)
    if (s.has_extremes && s.bytes > 0) moved.push_back(&s);
  // Most bytes first, as mpiP orders its message tables.
  std::stable_sort(moved.begin(), moved.end(), [](auto* a, auto* b) { return a->bytes > b->bytes; });
  t.title = fmt::format("Call-site message sizes (mpiP's): bytes per call, all ranks (top {} of {})",
                        std::min(top, moved.size()), moved.size());
  t.header = {"call site", "call", "calls", "max [B]", "mean [B]", "min [B]", "sum [B]"};
  t.numeric = {false, false, true, true, true, true, true};
  for (std::size_t i = 0; i < moved.size() && i < top; ++i) {
    const SiteSummary& s = *moved[i];
    t.rows.push_back({s.label, s.call, std::to_string(s.count), human::grouped(static_cast<double>(s.max_bytes)),
                      human::grouped(s.mean_bytes(), 1), human::grouped(static_cast<double>(s.min_bytes)),
                      human::grouped(static_cast<double>(s.bytes))});
  }
  return t;
}

std::string callsite_text(const std::vector<RankSite>& sites, Format format, double wall_s, double mpi_s) {
  if (sites.empty()) return "";
  const auto sums = summarize_sites(sites);
  std::string out = render(callsite_table(sums, 20), format);
  for (const Table& t : {callsite_time_table(sums, wall_s, mpi_s, 20), callsite_bytes_table(sums, 20)})
    if (!t.rows.empty()) out += "\n" + render(t, format);
  return out;
}

}  // namespace hpcsens::report
