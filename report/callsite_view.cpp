#include "report/callsite_view.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "common/errors.h"
#include "common/human_units.h"
#include "report/html_page.h"
#include "report/json_access.h"
#include "report/callsite_names.h"
#include "report/symbolize.h"

namespace hpcsens::report {
namespace {

using nlohmann::json;

double seconds_field(const json& s, const char* key, const std::string& where) {
  const auto sec = s.find(key);
  if (sec == s.end() || !sec->is_number() || !std::isfinite(sec->get<double>()) || sec->get<double>() < 0)
    throw InputError(where + "." + key, "expected seconds >= 0");
  return sec->get<double>();
}

RankSite one_site(int rank, const json& s, const std::string& where) {
  if (!s.is_object()) throw InputError(where, "expected an object");
  RankSite r;
  r.rank = rank;
  if (!s.contains("call") || !s["call"].is_string()) throw InputError(where + ".call", "expected the MPI call's name");
  r.call = s["call"].get<std::string>();
  r.count = json_access::whole(s, "count", where);
  r.bytes = json_access::whole(s, "bytes", where);
  r.seconds = seconds_field(s, "seconds", where);
  if (s.contains("module")) {
    if (!s["module"].is_string()) throw InputError(where + ".module", "expected a path");
    r.module = s["module"].get<std::string>();
    r.offset = json_access::whole(s, "offset", where);
  }
  if (s.contains("min_seconds")) {
    r.has_extremes = true;
    r.call_min_s = seconds_field(s, "min_seconds", where);
    r.call_max_s = seconds_field(s, "max_seconds", where);
    r.min_bytes = json_access::whole(s, "min_bytes", where);
    r.max_bytes = json_access::whole(s, "max_bytes", where);
  }
  return r;
}

// The site's frames named (stored names, else resolved now: callsite_names.h) and its label.
void name_site(RankSite& r, const json& s, const json& build_ids, Symbolizer& symbols) {
  const SourceLocation at = frame_location(s, build_ids, symbols);
  r.function = at.function, r.file = at.file, r.line = at.line, r.inlined_into = at.inlined_into;
  r.label = site_label(at, r.module, r.offset);
  if (!s.contains("callers") || !s["callers"].is_array()) return;
  for (const auto& f : s["callers"]) {
    const SourceLocation up = frame_location(f, build_ids, symbols);
    const std::string module = f.is_object() ? f.value("module", std::string()) : "";
    const std::uint64_t offset = f.is_object() && f.contains("offset") && f["offset"].is_number_unsigned()
                                     ? f["offset"].get<std::uint64_t>() : 0;
    r.callers.push_back(site_label(up, module, offset));
    r.label += " <- " + r.callers.back();
  }
}

double site_pct(double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0.0; }

// Sums one entry into its site's row for that rank (a rank may have several entries per label).
void add_to_rank_row(SiteRank& row, const RankSite& s, bool fresh) {
  if (fresh) {
    row.rank = s.rank, row.wall_s = s.rank_wall_s, row.mpi_s = s.rank_mpi_s;
    row.call_min_s = s.call_min_s, row.call_max_s = s.call_max_s, row.min_bytes = s.min_bytes, row.max_bytes = s.max_bytes;
  }
  row.has_extremes = row.has_extremes && s.has_extremes;
  row.call_min_s = std::min(row.call_min_s, s.call_min_s), row.call_max_s = std::max(row.call_max_s, s.call_max_s);
  row.min_bytes = std::min(row.min_bytes, s.min_bytes), row.max_bytes = std::max(row.max_bytes, s.max_bytes);
  row.count += s.count, row.bytes += s.bytes, row.seconds += s.seconds;
}

void add_extremes(SiteSummary& t, const RankSite& s) {
  t.has_extremes = t.has_extremes && s.has_extremes;
  t.call_min_s = std::min(t.call_min_s, s.call_min_s), t.call_max_s = std::max(t.call_max_s, s.call_max_s);
  t.min_bytes = std::min(t.min_bytes, s.min_bytes), t.max_bytes = std::max(t.max_bytes, s.max_bytes);
}

}  // namespace

std::vector<RankSite> callsites_of(const json& raw_ranks, const std::string& file) {
  std::vector<RankSite> out;
  if (!raw_ranks.is_array()) return out;
  Symbolizer symbols;
  for (const auto& r : raw_ranks) {
    if (!r.is_object() || !r.contains("callsites") || r["callsites"].is_null()) continue;
    const int rank = r.contains("rank") && r["rank"].is_number_integer() ? r["rank"].get<int>() : -1;
    const std::string where = fmt::format("{}: ranks[rank {}].callsites", file, rank);
    if (!r["callsites"].is_array()) throw InputError(where, "expected an array");
    const json ids = r.value("callsite_build_ids", json::object());
    const double wall = r.contains("wall_s") && r["wall_s"].is_number() ? r["wall_s"].get<double>() : 0.0;
    const double mpi = r.contains("mpi_s") && r["mpi_s"].is_number() ? r["mpi_s"].get<double>() : 0.0;
    for (std::size_t i = 0; i < r["callsites"].size(); ++i) {
      RankSite s = one_site(rank, r["callsites"][i], fmt::format("{}[{}]", where, i));
      s.rank_wall_s = wall, s.rank_mpi_s = mpi;
      name_site(s, r["callsites"][i], ids, symbols);
      out.push_back(std::move(s));
    }
  }
  return out;
}

std::vector<SiteSummary> summarize_sites(const std::vector<RankSite>& sites) {
  // Keyed by what the user sees (function and file:line, else module and offset), never by
  // address: the same site on every rank whatever its load map, and one line's several call
  // instructions (an unrolled loop) are one site. Seconds per rank first, then their spread.
  std::map<std::pair<std::string, std::string>, SiteSummary> by;
  std::map<std::pair<std::string, std::string>, std::map<int, SiteRank>> per_rank;
  for (const auto& s : sites) {
    const std::string label = s.label.empty() ? site_label({s.function, s.file, s.line}, s.module, s.offset) : s.label;
    SiteSummary& t = by[{s.call, label}];
    if (t.label.empty()) {
      t.call = s.call, t.label = label, t.module = s.module, t.offset = s.offset;
      t.call_min_s = s.call_min_s, t.call_max_s = s.call_max_s, t.min_bytes = s.min_bytes, t.max_bytes = s.max_bytes;
    }
    add_extremes(t, s);
    t.count += s.count, t.bytes += s.bytes, t.seconds += s.seconds;
    const auto [row, fresh] = per_rank[{s.call, label}].try_emplace(s.rank);
    add_to_rank_row(row->second, s, fresh);
  }
  std::vector<SiteSummary> out;
  for (auto& [k, t] : by) {
    const auto& ranks = per_rank[k];
    t.ranks = static_cast<int>(ranks.size());
    t.min_s = ranks.begin()->second.seconds, t.max_s = t.min_s;
    t.min_rank = t.max_rank = ranks.begin()->first;
    double sq = 0;
    for (const auto& [rank, row] : ranks) {
      if (row.seconds < t.min_s) t.min_s = row.seconds, t.min_rank = rank;
      if (row.seconds > t.max_s) t.max_s = row.seconds, t.max_rank = rank;
      t.per_rank.push_back(row);
    }
    const double mean = t.seconds / static_cast<double>(ranks.size());
    for (const auto& [rank, row] : ranks) sq += (row.seconds - mean) * (row.seconds - mean);
    t.cov = mean > 0 ? std::sqrt(sq / static_cast<double>(ranks.size())) / mean : 0.0;
    out.push_back(std::move(t));
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.seconds > b.seconds; });
  return out;
}

Table callsite_table(const std::vector<SiteSummary>& sites, std::size_t top) {
  Table t;
  if (sites.empty()) return t;
  t.title = fmt::format("Where ranks wait: MPI time per call site (top {} of {})", std::min(top, sites.size()), sites.size());
  // Narrow headers: the call site's file:line needs the width (text tables fit 120 columns).
  t.header = {"call site", "call", "ranks", "calls", "time [s]", "min s (rank)", "max s (rank)", "COV", "bytes",
              "B/call"};
  t.numeric = {false, false, true, true, true, true, true, true, true, true};
  for (std::size_t i = 0; i < sites.size() && i < top; ++i) {
    const SiteSummary& s = sites[i];
    t.rows.push_back({s.label, s.call, std::to_string(s.ranks), std::to_string(s.count), fixed(s.seconds, 6),
                      fmt::format("{} ({})", fixed(s.min_s, 6), s.min_rank),
                      fmt::format("{} ({})", fixed(s.max_s, 6), s.max_rank), fixed(s.cov, 3),
                      human::grouped(static_cast<double>(s.bytes)), human::grouped(s.mean_bytes(), 1)});
  }
  return t;
}


std::string callsite_csv(const std::vector<RankSite>& sites) {
  std::string out = "rank,call,function,file,line,module,offset,count,seconds,bytes\n";
  for (const auto& s : sites)
    out += fmt::format("{},{},{},{},{},{},{},{},{},{}\n", s.rank, csv_cell(s.call), csv_cell(s.function),
                       csv_cell(s.file), s.line, csv_cell(s.module), s.offset, s.count, s.seconds, s.bytes);
  return out;
}

std::string callsite_stats_csv(const std::vector<SiteSummary>& sites, double wall_s, double mpi_s) {
  std::string out = "site,call,ranks,count,seconds,min_s,min_rank,max_s,max_rank,cov,bytes,mean_bytes,app_pct,mpi_pct,"
                    "call_min_s,call_mean_s,call_max_s,min_bytes,max_bytes\n";
  for (const auto& s : sites) {
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},", csv_cell(s.label), csv_cell(s.call), s.ranks,
                       s.count, s.seconds, s.min_s, s.min_rank, s.max_s, s.max_rank, s.cov, s.bytes, s.mean_bytes(),
                       site_pct(s.seconds, wall_s), site_pct(s.seconds, mpi_s));
    out += s.has_extremes ? fmt::format("{},{},{},{},{}\n", s.call_min_s, s.mean_call_s(), s.call_max_s, s.min_bytes,
                                        s.max_bytes)
                          : ",,,,\n";
  }
  return out;
}

std::pair<double, double> sum_wall_and_mpi(const json& raw_ranks) {
  double wall = 0, mpi = 0;
  if (!raw_ranks.is_array()) return {0, 0};
  for (const auto& r : raw_ranks) {
    if (!r.is_object()) continue;
    if (r.contains("wall_s") && r["wall_s"].is_number()) wall += r["wall_s"].get<double>();
    if (r.contains("mpi_s") && r["mpi_s"].is_number()) mpi += r["mpi_s"].get<double>();
  }
  return {wall, mpi};
}

json callsite_json(const std::vector<SiteSummary>& sites, double wall_s, double mpi_s) {
  json out = json::array();
  for (const auto& s : sites)
    out.push_back({{"site", s.label}, {"call", s.call}, {"ranks", s.ranks}, {"count", s.count},
                   {"seconds", s.seconds}, {"min_s", s.min_s}, {"min_rank", s.min_rank}, {"max_s", s.max_s},
                   {"max_rank", s.max_rank}, {"cov", s.cov}, {"bytes", s.bytes}, {"mean_bytes", s.mean_bytes()},
                   {"app_pct", site_pct(s.seconds, wall_s)}, {"mpi_pct", site_pct(s.seconds, mpi_s)}});
  for (std::size_t i = 0; i < sites.size(); ++i) {
    json& rows = out[i]["per_rank"] = json::array();
    for (const SiteRank& r : sites[i].per_rank) rows.push_back(site_rank_json(r));
  }
  for (std::size_t i = 0; i < sites.size(); ++i)
    if (sites[i].has_extremes)
      out[i].update({{"call_min_s", sites[i].call_min_s}, {"call_mean_s", sites[i].mean_call_s()},
                     {"call_max_s", sites[i].call_max_s}, {"min_bytes", sites[i].min_bytes},
                     {"max_bytes", sites[i].max_bytes}});
  return out;
}

json callsite_html_section(const std::vector<RankSite>& sites, double wall_s, double mpi_s) {
  if (sites.empty()) return json();
  const auto sums = summarize_sites(sites);
  json s = html::section("Where ranks wait: MPI time per call site");
  s["text"].push_back("Each site is the caller's return address (with --stack-depth K, the K frames above the call, "
                      "innermost first), named at the end of the run to function and file:line; a call inlined into "
                      "another function is named by the inlined function (a site in a module without debug "
                      "information shows its module and offset).");
  std::vector<std::string> labels;
  json total = json::array(), lo = json::array(), hi = json::array();
  for (std::size_t i = 0; i < sums.size() && i < 15; ++i) {
    labels.push_back(sums[i].label + " " + sums[i].call);
    total.push_back(sums[i].seconds);
    lo.push_back(sums[i].min_s);
    hi.push_back(sums[i].max_s);
  }
  s["charts"].push_back(html::bar_chart("MPI time per call site (top 15)", "call site", "time [s]", labels,
                                        {html::series("all ranks", total), html::series("least on one rank", lo),
                                         html::series("most on one rank", hi)},
                                        false, true));
  s["tables"].push_back(html::table_json(callsite_table(sums, 50)));
  if (Table t = callsite_time_table(sums, wall_s, mpi_s, 50); !t.rows.empty()) s["tables"].push_back(html::table_json(t));
  if (Table t = callsite_bytes_table(sums, 50); !t.rows.empty()) s["tables"].push_back(html::table_json(t));
  return s;
}

}  // namespace hpcsens::report
