// The HTML page of a run record: job facts and bounds, time per rank (every rank, or a
// distribution plus the slowest and fastest ranks for large jobs), MPI time by call, counters
// and Top-Down as a tree.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "report/headline.h"
#include "report/oversubscription.h"
#include "report/html_page.h"
#include "report/html_report.h"
#include "report/memory_view.h"
#include "report/mpi_aggregate.h"
#include "report/record_output.h"
#include "report/run_report.h"
#include "report/running_fraction_view.h"
#include "report/run_scan_rows.h"
#include "topdown/bottleneck.h"
#include "topdown/metrics.h"

namespace hpcsens::report {
namespace {

using html::json;
using record::RunRecord;

constexpr std::size_t kBarsPerRank = 256;  // up to this many ranks every rank gets a bar
constexpr std::size_t kExtremes = 10;      // slowest / fastest ranks shown for larger jobs
constexpr std::size_t kTableRanks = 64;    // per-rank tables up to this many ranks

json rank_bars(const RunRecord& rec, const std::vector<std::size_t>& idx, const std::string& title) {
  std::vector<std::string> labels;
  json compute = json::array(), mpi = json::array(), io = json::array();
  for (std::size_t i : idx) {
    const auto& r = rec.ranks[i];
    labels.push_back(std::to_string(r.rank) + (r.complete ? "" : "*"));
    compute.push_back(r.compute_s);
    mpi.push_back(r.mpi_s);
    io.push_back(r.io_s);
  }
  return html::bar_chart(title, "rank", "time [s]", labels,
                         {html::series("compute", compute), html::series("MPI", mpi), html::series("I/O", io)},
                         true);
}

json compute_histogram(const RunRecord& rec) {
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& r : rec.ranks) lo = std::min(lo, r.compute_s), hi = std::max(hi, r.compute_s);
  constexpr int kBins = 40;
  const double width = hi > lo ? (hi - lo) / kBins : 1.0;
  std::vector<long> counts(kBins, 0);
  for (const auto& r : rec.ranks)
    ++counts[static_cast<std::size_t>(std::min<double>(kBins - 1, std::floor((r.compute_s - lo) / width)))];
  std::vector<std::string> labels;
  for (int b = 0; b < kBins; ++b) labels.push_back(fmt::format("{:.4g}-{:.4g}", lo + b * width, lo + (b + 1) * width));
  // Log counts: a few slow ranks among 100,000 must stay visible next to the bulk.
  json chart = html::bar_chart(fmt::format("Compute time per rank: distribution over {} ranks", rec.ranks.size()),
                               "compute time per rank [s]", "ranks [count, log scale]", labels,
                               {html::series("ranks", json(counts))});
  chart["logy"] = true;
  return chart;
}

json time_section(const RunRecord& rec) {
  json s = html::section("Time per rank: compute, MPI and I/O");
  if (rec.ranks.empty()) {
    s["text"].push_back("No rank records: no MPI ranks reported.");
    return s;
  }
  if (rec.ranks.size() <= kBarsPerRank) {
    std::vector<std::size_t> all(rec.ranks.size());
    std::iota(all.begin(), all.end(), 0);
    s["charts"].push_back(rank_bars(rec, all, "Time per rank (stacked: compute + MPI + I/O = wall)"));
  } else {
    s["text"].push_back(fmt::format("{} ranks: summarised as the distribution of compute time and the {} "
                                    "slowest and fastest ranks (hpcsens report --all --format csv lists every rank).",
                                    rec.ranks.size(), kExtremes));
    s["charts"].push_back(compute_histogram(rec));
    s["charts"].push_back(rank_bars(rec, slowest_ranks(rec, kExtremes),
                                    fmt::format("Slowest {} ranks by compute", kExtremes)));
    s["charts"].push_back(rank_bars(rec, fastest_ranks(rec, kExtremes),
                                    fmt::format("Fastest {} ranks by compute", kExtremes)));
    s["tables"].push_back(html::table_json(distribution_table(rec)));
  }
  if (rec.ranks.size() <= kTableRanks) {
    std::vector<std::size_t> all(rec.ranks.size());
    std::iota(all.begin(), all.end(), 0);
    s["tables"].push_back(html::table_json(rank_table(rec, all, "Ranks")));
  }
  return s;
}

json calls_section(const RunRecord& rec) {
  json s = html::section("MPI time by call");
  const Table t = mpi_call_table(rec, 15);
  if (t.rows.empty()) {
    s["text"].push_back("No MPI calls were recorded.");
    return s;
  }
  std::vector<std::string> labels;
  json total = json::array(), max_rank = json::array();
  for (const auto& row : t.rows) {
    labels.push_back(row[0]);
    total.push_back(std::stod(row[2]));
    max_rank.push_back(std::stod(row[4]));
  }
  s["charts"].push_back(html::bar_chart("MPI time by call, all ranks (where ranks wait)", "call", "time [s]",
                                        labels,
                                        {html::series("all ranks [s]", total),
                                         html::series("most on one rank [s]", max_rank)},
                                        false, true));
  s["tables"].push_back(html::table_json(mpi_call_table(rec, 0)));
  // mpiP's aggregate tables (report/mpi_aggregate.h), as the text report shows them.
  const MpiAggregate agg = mpi_aggregate(scan_of(rec));
  s["tables"].push_back(html::table_json(aggregate_time_table(agg, 0)));
  if (const Table sent = aggregate_sent_table(agg, 0); !sent.rows.empty()) s["tables"].push_back(html::table_json(sent));
  s["tables"].push_back(html::table_json(mpi_class_table(agg)));
  return s;
}

json counters_section(const RunRecord& rec) {
  json s = html::section("Counters");
  const Table summary = counter_summary_table(rec);
  const std::string running = running_fraction_line(running_fraction_summary(scan_of(rec)));
  if (summary.rows.empty()) {
    s["text"].push_back("No counter values in this record (counters_status: " + rec.counters_status + ").");
    if (!running.empty()) s["text"].push_back(running);
    return s;
  }
  if (!running.empty()) s["text"].push_back(running);
  s["tables"].push_back(html::table_json(summary));
  if (rec.ranks.size() <= kTableRanks) {
    std::vector<std::size_t> all(rec.ranks.size());
    std::iota(all.begin(), all.end(), 0);
    for (const auto& t : counter_rank_tables(rec, all, 8)) s["tables"].push_back(html::table_json(t));
  }
  return s;
}

// Mean of each metric over measured ranks, as a tree with hierarchical safety: children only
// under a flagged parent.
json topdown_tree(const std::vector<json>& per_rank) {
  auto mean = [&](const char* f) -> std::optional<double> {
    double sum = 0;
    int n = 0;
    for (const auto& m : per_rank)
      if (m["ok"].get<bool>() && m.contains(f)) sum += m[f].get<double>(), ++n;
    return n ? std::optional<double>(sum / n) : std::nullopt;
  };
  topdown::TopdownMetrics m;
  m.ok = true;
  m.retiring = mean("retiring"), m.bad_speculation = mean("bad_speculation");
  m.frontend_bound = mean("frontend_bound"), m.backend_bound = mean("backend_bound");
  m.memory_bound = mean("memory_bound"), m.core_bound = mean("core_bound");
  m.fetch_latency = mean("fetch_latency"), m.fetch_bandwidth = mean("fetch_bandwidth");
  m.branch_mispredicts = mean("branch_mispredicts"), m.machine_clears = mean("machine_clears");
  const auto path = topdown::flagged_path(m);
  auto flagged = [&](const std::string& name) { return std::find(path.begin(), path.end(), name) != path.end(); };
  // A flagged node whose children were not counted says so where they would be (issue 29).
  std::string gap;
  for (const auto& r : per_rank)
    if (gap.empty() && r.contains("level2_not_counted")) gap = r["level2_not_counted"].get<std::string>();
  auto node = [&](const std::string& name, const std::optional<double>& v, json children = json::array()) {
    json n = {{"name", name}, {"value", v ? json(*v) : json(nullptr)}, {"flagged", flagged(name)}};
    const bool uncounted = children.size() == 2 && children[0]["value"].is_null() && children[1]["value"].is_null();
    if (flagged(name) && uncounted && !gap.empty())
      children = json::array({{{"name", "level 2 not counted (" + gap + ")"}, {"value", nullptr}, {"flagged", false}}});
    if (flagged(name)) n["children"] = std::move(children);
    return n;
  };
  return json::array({node("Retiring", m.retiring),
                      node("Bad Speculation", m.bad_speculation,
                           {node("Branch Mispredicts", m.branch_mispredicts), node("Machine Clears", m.machine_clears)}),
                      node("Frontend Bound", m.frontend_bound,
                           {node("Fetch Latency", m.fetch_latency), node("Fetch Bandwidth", m.fetch_bandwidth)}),
                      node("Backend Bound", m.backend_bound,
                           {node("Memory Bound", m.memory_bound), node("Core Bound", m.core_bound)})});
}

json topdown_section(const RunRecord& rec) {
  json s = html::section("Top-Down");
  const auto per_rank = topdown_per_rank(rec);
  const bool slots = std::any_of(per_rank.begin(), per_rank.end(), [](const json& m) {
    return m["ok"].get<bool>() && !m["stall_ratios"].get<bool>();
  });
  // The text section says what was measured, the job's bottleneck, or why Top-Down is missing.
  const std::string text = topdown::bottleneck_section(rec, topdown::TableFormat::kText, false);
  if (!slots) {
    s["pre"].push_back(text);
    return s;
  }
  s["text"].push_back("Mean over measured ranks, fraction of issue slots; a node is flagged when it is outside the "
                      "HPC ranges (Yasin 2014; cookbook thresholds), and its children are shown only then.");
  s["tree"] = topdown_tree(per_rank);
  if (rec.ranks.size() <= kBarsPerRank) {
    std::vector<std::string> labels;
    json cols[4] = {json::array(), json::array(), json::array(), json::array()};
    const char* names[4] = {"retiring", "bad_speculation", "frontend_bound", "backend_bound"};
    for (std::size_t i = 0; i < rec.ranks.size(); ++i) {
      labels.push_back(std::to_string(rec.ranks[i].rank));
      for (int k = 0; k < 4; ++k)
        cols[k].push_back(per_rank[i].contains(names[k]) ? json(100 * per_rank[i][names[k]].get<double>()) : json(nullptr));
    }
    s["charts"].push_back(html::bar_chart("Top-Down level 1 per rank", "rank", "share of issue slots [%]", labels,
                                          {html::series("Retiring", cols[0]), html::series("Bad Speculation", cols[1]),
                                           html::series("Frontend Bound", cols[2]),
                                           html::series("Backend Bound", cols[3])},
                                          true));
  }
  s["pre"].push_back(text);
  return s;
}

// The program a launch line starts: the first word after the launcher that names a file path
// ("./app", "/opt/x/app"), else the last word; shown in the page's title.
std::string program_of(const std::vector<std::string>& command) {
  for (std::size_t i = 1; i < command.size(); ++i)
    if (command[i].find('/') != std::string::npos && command[i][0] != '-') return command[i];
  return command.back();
}

// The program (not the command's last argument, often an option value) and the job's rank
// count, with how many left a measurement when some did not (a job killed by MPI_Abort).
std::string run_title(const RunRecord& rec) {
  const int nranks = std::max(rec.job.nranks, static_cast<int>(rec.ranks.size()));
  std::string title = "hpcsens run report: ";
  if (!rec.job.program.empty()) title += rec.job.program + ", ";
  else if (!rec.job.command.empty()) title += program_of(rec.job.command) + ", ";  // older records
  title += fmt::format("{} rank{}", nranks, nranks == 1 ? "" : "s");
  if (static_cast<int>(rec.ranks.size()) < nranks) title += fmt::format(" ({} measured)", rec.ranks.size());
  return title;
}

}  // namespace

// Where a section goes: what dominates the run first, then the job's facts, then the rest; a
// Top-Down section that only says why it is missing goes last.
int section_rank(const json& section, Dominant d) {
  const std::string t = section.value("title", std::string());
  auto is = [&](const char* prefix) { return t.rfind(prefix, 0) == 0; };
  const bool io = is("I/O"), calls = is("MPI time by call"), time = is("Time per rank"), td = is("Top-Down");
  const bool traffic = is("Message sizes") || is("Point-to-point");
  if ((d == Dominant::kIo && io) || (d == Dominant::kMpi && calls) || (d != Dominant::kIo && d != Dominant::kMpi && time))
    return 0;
  if ((d == Dominant::kImbalance && calls) || (d == Dominant::kMpi && traffic) || (d == Dominant::kCompute && td && section.contains("tree")))
    return 1;
  if (is("Job and")) return 2;
  if (td && !section.contains("tree")) return 4;
  return 3;
}

namespace {

// The page reads the typed record, whose scan has no "io" or "cpu" objects: the ranks' own are
// added from the raw record, so the page's answer comes from the same RunFacts (run_facts) as
// the text report's, never from a second rule.
RunScan page_scan(const RunRecord& rec, const json& raw) {
  RunScan scan = scan_with_extras(rec);
  const bool has_extras = !rec.ranks.empty() && !rec.ranks.front().extra.empty();
  if (has_extras || !raw.is_object() || !raw.contains("ranks") || !raw["ranks"].is_array()) return scan;
  for (const auto& r : raw["ranks"]) {
    if (!r.is_object()) continue;
    const auto num = [&](const char* k) { return r.contains(k) && r[k].is_number() ? r[k].get<double>() : 0.0; };
    add_measure_json(scan.measure, r, r.contains("host") && r["host"].is_string() ? r["host"].get<std::string>() : "",
                     num("wall_s") - num("io_s"));
  }
  return scan;
}

}  // namespace

json run_page(const RunRecord& rec, const json& raw) {
  const RunScan scan = page_scan(rec, raw);
  const RunFacts facts = run_facts(scan);
  json page = {{"title", run_title(rec)},
               {"emulated", rec.emulated},
               {"answer", html::answer(run_answer(facts))},
               {"notes", json::array()},
               {"sections", json::array()}};
  json facts_section = html::section("Job and barrier-corrected bounds");
  facts_section["tables"].push_back(html::table_json(job_table(rec)));
  facts_section["tables"].push_back(html::table_json(summary_table(scan)));
  if (scan.measure.memory.ranks > 0) facts_section["tables"].push_back(html::table_json(memory_node_table(scan.measure.memory)));
  if (!rec.complete) facts_section["warnings"].push_back("INCOMPLETE run: some ranks did not reach MPI_Finalize.");
  std::vector<json> sections = {facts_section, time_section(rec), calls_section(rec), counters_section(rec),
                                topdown_section(rec)};
  if (raw.is_object() && raw.contains("ranks"))
    for (auto& s : run_extra_sections(raw["ranks"], rec.emulated)) sections.push_back(std::move(s));
  const Dominant d = dominant(facts);
  std::stable_sort(sections.begin(), sections.end(),
                   [&](const json& a, const json& b) { return section_rank(a, d) < section_rank(b, d); });
  for (auto& s : sections) page["sections"].push_back(std::move(s));
  return page;
}

}  // namespace hpcsens::report
