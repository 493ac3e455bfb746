#pragma once
// Call sites of a run record (ranks[].callsites, docs/record-format.md) for the report: read and
// checked, resolved to function and file:line (symbolize.h), and summed over ranks per site with
// the spread over ranks, mpiP's "where ranks wait". Text, tidy CSV and the HTML section.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/table.h"

namespace hpcsens::report {

struct RankSite {
  int rank = 0;
  std::string call, module;
  std::uint64_t offset = 0, count = 0, bytes = 0;
  double seconds = 0;
  std::string function, file;  // resolved; "" when unknown
  int line = 0;
  std::string inlined_into;    // the function `function` was inlined into ("" when not inlined)
  // Each call's least and greatest duration and bytes (records before them: has_extremes false).
  bool has_extremes = false;
  double call_min_s = 0, call_max_s = 0;
  std::uint64_t min_bytes = 0, max_bytes = 0;
  // The frames above the site (`--stack-depth` > 1), labelled, innermost first.
  std::vector<std::string> callers;
  // The whole stack as the user reads it (site_label of each frame, joined by " <- "); the site's
  // identity over ranks. Empty: summarize_sites labels the site from the fields above.
  std::string label;
  // The rank's own wall_s and mpi_s (0 when the record lacks them): App% and MPI% of its rows.
  double rank_wall_s = 0, rank_mpi_s = 0;
};

// Every rank's sites, resolved (ranks without callsites are skipped). InputError names `file`,
// the rank and the field of a malformed entry.
std::vector<RankSite> callsites_of(const nlohmann::json& raw_ranks, const std::string& file);

// One site on one rank (mpiP's per-rank rows; a rank's several entries with one label summed).
struct SiteRank {
  int rank = 0;
  std::uint64_t count = 0, bytes = 0;
  double seconds = 0, wall_s = 0, mpi_s = 0;  // the rank's wall and MPI time, for App% and MPI%
  bool has_extremes = true;
  double call_min_s = 0, call_max_s = 0;
  std::uint64_t min_bytes = 0, max_bytes = 0;
};

// One site over all ranks: the sum and the spread of its time over the ranks that called it.
struct SiteSummary {
  std::string call, label, module;
  std::uint64_t offset = 0, count = 0, bytes = 0;
  double seconds = 0, min_s = 0, max_s = 0;
  int ranks = 0, min_rank = -1, max_rank = -1;
  // Coefficient of variation of the site's seconds over the ranks that called it (population
  // standard deviation / mean; 0 for one rank), mpiP's COV.
  double cov = 0;
  // Each call's least and greatest duration over all ranks, and the least and greatest bytes of one
  // call (mpiP's call-site time and message statistics); known only when every rank recorded them.
  bool has_extremes = true;
  double call_min_s = 0, call_max_s = 0;
  std::uint64_t min_bytes = 0, max_bytes = 0;
  std::vector<SiteRank> per_rank;  // by rank
  double mean_call_s() const { return count ? seconds / static_cast<double>(count) : 0.0; }
  // Bytes per call (0 without calls).
  double mean_bytes() const { return count ? static_cast<double>(bytes) / static_cast<double>(count) : 0.0; }
};
// Most time first.
std::vector<SiteSummary> summarize_sites(const std::vector<RankSite>& sites);

// "Where ranks wait": the top `top` sites (title empty when there are none).
Table callsite_table(const std::vector<SiteSummary>& sites, std::size_t top);
// `--format csv --table callsites`: rank,call,function,file,line,module,offset,count,seconds,bytes.
std::string callsite_csv(const std::vector<RankSite>& sites);
// `--format csv --table callsite_stats`: mpiP's call-site statistics, one row per site over ranks:
// site,call,ranks,count,seconds,min_s,min_rank,max_s,max_rank,cov,bytes,mean_bytes,app_pct,mpi_pct,
// call_min_s,call_mean_s,call_max_s,min_bytes,max_bytes (the last five empty for older records)
// (App% of `wall_s` and MPI% of `mpi_s`, both summed over ranks: sum_wall_and_mpi(raw_ranks)).
std::string callsite_stats_csv(const std::vector<SiteSummary>& sites, double wall_s, double mpi_s);
// `--format csv --table callsite_ranks`: mpiP's per-rank rows, one per site and rank (the '*' rows
// are callsite_stats): site,call,rank,count,seconds,bytes,mean_bytes,app_pct,mpi_pct,call_min_s,
// call_mean_s,call_max_s,min_bytes,max_bytes (App% and MPI% of that rank's wall_s and mpi_s).
std::string callsite_ranks_csv(const std::vector<SiteSummary>& sites);
// One per-rank row as derived.callsites[].per_rank of the JSON report has it.
nlohmann::json site_rank_json(const SiteRank& r);
// The ranks' wall_s and mpi_s summed over the `ranks` array of a record.
std::pair<double, double> sum_wall_and_mpi(const nlohmann::json& raw_ranks);
// `derived.callsites` of the JSON report: every site over ranks (the table's columns, unrounded).
// App% and MPI% as in callsite_stats_csv.
nlohmann::json callsite_json(const std::vector<SiteSummary>& sites, double wall_s, double mpi_s);
// The HTML section (null without call sites); App% and MPI% of `wall_s` and `mpi_s`.
nlohmann::json callsite_html_section(const std::vector<RankSite>& sites, double wall_s = 0, double mpi_s = 0);

// mpiP's "Callsite Time statistics": per site a row for each rank (App% and MPI% of that rank's
// wall and MPI time) when the site has at most kRankRowsShown ranks, then the '*' row over ranks:
// calls, each call's max/mean/min [ms], App% and MPI% (callsite_stats.cpp). `top` counts sites.
inline constexpr std::size_t kRankRowsShown = 16;
Table callsite_time_table(const std::vector<SiteSummary>& sites, double wall_s, double mpi_s, std::size_t top);
// mpiP's "Callsite Message Sent statistics": sites that moved bytes, rows per rank that moved
// bytes (as above) and '*': calls, max/mean/min bytes per call and the sum.
Table callsite_bytes_table(const std::vector<SiteSummary>& sites, std::size_t top);
// The text report's call-site part: "where ranks wait" and the two tables above ("" without sites).
std::string callsite_text(const std::vector<RankSite>& sites, Format format, double wall_s, double mpi_s);

}  // namespace hpcsens::report
