// mpiP's per-site tables in the text report, the page and the CSV's columns: each call's
// max/mean/min duration with App% and MPI% ("Callsite Time statistics"), and the bytes of each call
// ("Callsite Message Sent statistics"), per site: a row per rank, then '*' over ranks.
#include <fmt/core.h>

#include <algorithm>

#include "common/human_units.h"
#include "report/callsite_view.h"

namespace hpcsens::report {
namespace {

double stats_pct(double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0.0; }

std::string ms(double s) { return fixed(s * 1e3, 4); }

double rank_mean_call_s(const SiteRank& r) { return r.count ? r.seconds / static_cast<double>(r.count) : 0.0; }
double rank_mean_bytes(const SiteRank& r) { return r.count ? static_cast<double>(r.bytes) / static_cast<double>(r.count) : 0.0; }

// Rows per rank only while they stay readable; the CSV and JSON have them all.
bool show_rank_rows(const SiteSummary& s) { return s.per_rank.size() <= kRankRowsShown; }

}  // namespace

nlohmann::json site_rank_json(const SiteRank& r) {
  nlohmann::json j = {{"rank", r.rank}, {"count", r.count}, {"seconds", r.seconds}, {"bytes", r.bytes},
                      {"mean_bytes", rank_mean_bytes(r)}, {"app_pct", stats_pct(r.seconds, r.wall_s)},
                      {"mpi_pct", stats_pct(r.seconds, r.mpi_s)}};
  if (r.has_extremes)
    j.update({{"call_min_s", r.call_min_s}, {"call_mean_s", rank_mean_call_s(r)}, {"call_max_s", r.call_max_s},
              {"min_bytes", r.min_bytes}, {"max_bytes", r.max_bytes}});
  return j;
}

std::string callsite_ranks_csv(const std::vector<SiteSummary>& sites) {
  std::string out = "site,call,rank,count,seconds,bytes,mean_bytes,app_pct,mpi_pct,call_min_s,call_mean_s,call_max_s,"
                    "min_bytes,max_bytes\n";
  for (const SiteSummary& s : sites)
    for (const SiteRank& r : s.per_rank) {
      out += fmt::format("{},{},{},{},{},{},{},{},{},", csv_cell(s.label), csv_cell(s.call), r.rank, r.count, r.seconds,
                         r.bytes, rank_mean_bytes(r), stats_pct(r.seconds, r.wall_s), stats_pct(r.seconds, r.mpi_s));
      out += r.has_extremes ? fmt::format("{},{},{},{},{}\n", r.call_min_s, rank_mean_call_s(r), r.call_max_s, r.min_bytes,
                                          r.max_bytes)
                            : ",,,,\n";
    }
  return out;
}

Table callsite_time_table(const std::vector<SiteSummary>& sites, double wall_s, double mpi_s, std::size_t top) {
  Table t;
  t.title = fmt::format("Call-site time statistics (mpiP's): each call's duration per rank (of that rank's "
                        "time) and * over all ranks (top {} of {} sites; ranks listed up to {} per site)",
                        std::min(top, sites.size()), sites.size(), kRankRowsShown);
  t.header = {"call site", "call", "rank", "calls", "max [ms]", "mean [ms]", "min [ms]", "App%", "MPI%"};
  t.numeric = {false, false, true, true, true, true, true, true, true};
  std::size_t shown = 0;
  for (const SiteSummary& s : sites) {
    if (shown == top) break;
    if (!s.has_extremes) continue;  // a record from before per-call extremes
    ++shown;
    if (show_rank_rows(s))
      for (const SiteRank& r : s.per_rank)
        t.rows.push_back({s.label, s.call, std::to_string(r.rank), std::to_string(r.count), ms(r.call_max_s),
                          ms(rank_mean_call_s(r)), ms(r.call_min_s), fixed(stats_pct(r.seconds, r.wall_s), 2),
                          fixed(stats_pct(r.seconds, r.mpi_s), 2)});
    t.rows.push_back({s.label, s.call, "*", std::to_string(s.count), ms(s.call_max_s), ms(s.mean_call_s()),
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
  t.title = fmt::format("Call-site message sizes (mpiP's): bytes per call per rank and * over all ranks (top {} of {} "
                        "sites; ranks listed up to {} per site)",
                        std::min(top, moved.size()), moved.size(), kRankRowsShown);
  t.header = {"call site", "call", "rank", "calls", "max [B]", "mean [B]", "min [B]", "sum [B]"};
  t.numeric = {false, false, true, true, true, true, true, true};
  for (std::size_t i = 0; i < moved.size() && i < top; ++i) {
    const SiteSummary& s = *moved[i];
    if (show_rank_rows(s))
      for (const SiteRank& r : s.per_rank)
        if (r.bytes > 0)
          t.rows.push_back({s.label, s.call, std::to_string(r.rank), std::to_string(r.count),
                            human::grouped(static_cast<double>(r.max_bytes)), human::grouped(rank_mean_bytes(r), 1),
                            human::grouped(static_cast<double>(r.min_bytes)), human::grouped(static_cast<double>(r.bytes))});
    t.rows.push_back({s.label, s.call, "*", std::to_string(s.count), human::grouped(static_cast<double>(s.max_bytes)),
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
