#include "report/run_report.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "report/headline.h"
#include "report/measure_section.h"
#include "report/memory_view.h"
#include "report/mpi_aggregate.h"
#include "report/running_fraction_view.h"
#include "topdown/bottleneck.h"
#include "topdown/event_tables.h"

namespace hpcsens::report {
namespace {

using record::RankRecord;
using record::RunRecord;

std::vector<std::size_t> ordered_by_compute(const RunScan& s, std::size_t n, bool slowest) {
  std::vector<std::size_t> idx(s.rows.size());
  std::iota(idx.begin(), idx.end(), 0);
  n = std::min(n, idx.size());
  std::partial_sort(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(n), idx.end(),
                    [&](std::size_t a, std::size_t b) {
                      const double ca = s.rows[a].compute_s, cb = s.rows[b].compute_s;
                      if (ca != cb) return slowest ? ca > cb : ca < cb;
                      return s.rows[a].rank < s.rows[b].rank;
                    });
  idx.resize(n);
  return idx;
}

// Top-Down needs the counters of every rank only where an event set has a Top-Down table;
// otherwise its section is one line that depends on the statuses and the event set's name, and
// the first rank with an event set stands for all.
RunRecord topdown_input(const RunScan& s) {
  RunRecord rec = s.header;
  bool tables = false;
  for (const auto& name : s.names) tables = tables || !topdown::table_by_name(name).name.empty();
  for (std::size_t i = 0; i < s.rows.size(); ++i) {
    const RankRow& row = s.rows[i];
    if (!tables && !rec.ranks.empty() && rec.ranks.front().event_set.empty() && !s.names[row.event_set].empty())
      rec.ranks.clear();  // the stand-in is the first rank that names its event set
    if (!tables && !rec.ranks.empty()) continue;
    record::RankRecord r;
    r.rank = row.rank;
    r.compute_s = row.compute_s;
    r.event_set = s.names[row.event_set];
    r.counters_status = s.names[row.counters_status];
    r.multiplexed = row.multiplexed;
    if (row.any_running) r.counter_running_fraction["min"] = row.min_running;
    if (tables) r.counters = counters_of(s, i);
    rec.ranks.push_back(std::move(r));
  }
  return rec;
}

topdown::TableFormat topdown_format(Format f) {
  switch (f) {
    case Format::kCsv: return topdown::TableFormat::kCsv;
    case Format::kMarkdown: return topdown::TableFormat::kMarkdown;
    case Format::kTable: break;
  }
  return topdown::TableFormat::kText;
}

// Top-Down: CSV and Markdown as topdown renders them; text through this module's tables so it
// fits 120 columns like every other table.
std::string topdown_text(const RunScan& s, const ReportOptions& opt) {
  const RunRecord rec = topdown_input(s);
  if (opt.format != Format::kTable) return topdown::bottleneck_section(rec, topdown_format(opt.format), opt.all_ranks);
  const auto d = topdown::bottleneck_data(rec, false, opt.all_ranks);
  std::string out;
  if (!d.header.empty()) {
    Table t{d.title, d.header, d.rows, {}};
    out = render(t, Format::kTable);
    out.pop_back();  // the verdict follows the table directly, as in topdown's own text
  }
  return out + wrap_text(d.line) + "\n";
}

// The counters' running fraction, once for the run, right below the Top-Down line it qualifies.
std::string running_fraction_text(const RunScan& s, Format format) {
  const std::string line = running_fraction_line(running_fraction_summary(s));
  if (line.empty()) return "";
  switch (format) {
    case Format::kTable: return wrap_text(line) + "\n";
    case Format::kMarkdown: return "\n" + line + "\n";  // its own paragraph, not the verdict's
    case Format::kCsv: return "# " + line + "\n";
  }
  return "";
}

// Counter values: min/mean/max over ranks always; per rank when every rank is listed.
// Beside the ranks listed: each one's MPI volume, collectives included (nothing when no bytes).
std::string volume_section(const RunScan& s, const std::vector<std::size_t>& listed, Format format) {
  const Table t = volume_table(s, listed, format);
  return t.rows.empty() ? "" : render(t, format);
}

std::string counter_section(const RunScan& s, const ReportOptions& opt) {
  if (s.counters.empty()) return "";
  std::string out = render(counter_summary_table(s), opt.format);
  if (opt.all_ranks || s.rows.size() <= opt.full_table_max) {
    std::vector<std::size_t> all(s.rows.size());
    std::iota(all.begin(), all.end(), 0);
    for (const auto& t : counter_rank_tables(s, all)) out += render(t, opt.format);
  }
  return out;
}

}  // namespace

Distribution distribution_of(std::vector<double> v) {
  Distribution d;
  if (v.empty()) return d;
  std::sort(v.begin(), v.end());
  auto q = [&](double p) {
    const double pos = p * static_cast<double>(v.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const std::size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
  };
  d.min = v.front();
  d.q1 = q(0.25);
  d.median = q(0.5);
  d.q3 = q(0.75);
  d.max = v.back();
  return d;
}

std::string top_calls(const RankRecord& rank, std::size_t top) {
  std::vector<const std::pair<const std::string, record::CallStats>*> calls;
  for (const auto& c : rank.mpi_calls) calls.push_back(&c);
  const std::size_t n = std::min(top, calls.size());
  std::partial_sort(calls.begin(), calls.begin() + static_cast<std::ptrdiff_t>(n), calls.end(),
                    [](const auto* a, const auto* b) {
                      if (a->second.seconds != b->second.seconds) return a->second.seconds > b->second.seconds;
                      return a->first < b->first;
                    });
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < n; ++i)
    parts.push_back(fmt::format("{} {:.3f} s x{}", calls[i]->first, calls[i]->second.seconds,
                                calls[i]->second.count));
  return join(parts, "; ");
}

std::vector<std::size_t> slowest_ranks(const RunScan& s, std::size_t n) { return ordered_by_compute(s, n, true); }
std::vector<std::size_t> fastest_ranks(const RunScan& s, std::size_t n) { return ordered_by_compute(s, n, false); }
std::vector<std::size_t> slowest_ranks(const RunRecord& rec, std::size_t n) { return slowest_ranks(scan_of(rec), n); }
std::vector<std::size_t> fastest_ranks(const RunRecord& rec, std::size_t n) { return fastest_ranks(scan_of(rec), n); }
std::string render_run_report(const RunRecord& rec, const ReportOptions& opt) {
  return render_run_report(scan_of(rec), opt);
}

std::string answer_section(const RunScan& scan, Format format) {
  const Answer a = run_answer(run_facts(scan));
  if (format == Format::kTable) return answer_text(a);
  if (format == Format::kCsv) return "";  // CSV is tables only
  return answer_markdown(a);
}

std::string render_run_report(const RunScan& rec, const ReportOptions& opt) {
  const bool io_first = dominant(run_facts(rec)) == Dominant::kIo;
  std::string out = answer_section(rec, opt.format);
  if (opt.summary_only) return out;
  out += render(job_table(rec.header), opt.format);
  out += render(summary_table(rec), opt.format);
  if (rec.measure.memory.hosts.size() > 1) out += render(memory_node_table(rec.measure.memory), opt.format);
  if (io_first) out += render_measure_section(rec.measure, opt.format);
  bool any_incomplete = false;
  for (const auto& r : rec.rows) any_incomplete = any_incomplete || !r.complete;
  const std::string mark = any_incomplete ? " (* = incomplete: rank did not reach MPI_Finalize)" : "";
  if (rec.rows.empty()) {
    out += "No rank records: no MPI ranks reported.\n\n";
  } else if (opt.all_ranks || rec.rows.size() <= opt.full_table_max) {
    std::vector<std::size_t> all(rec.rows.size());
    std::iota(all.begin(), all.end(), 0);
    out += render(rank_table(rec, all, "Ranks" + mark), opt.format);
    out += volume_section(rec, all, opt.format);
  } else {
    const auto slow = slowest_ranks(rec, opt.extremes), fast = fastest_ranks(rec, opt.extremes);
    out += render(rank_table(rec, slow,
                             fmt::format("Slowest {} ranks by compute of {} (--all lists every rank){}",
                                         std::min(opt.extremes, rec.rows.size()), rec.rows.size(), mark)),
                  opt.format);
    out += render(rank_table(rec, fast,
                             fmt::format("Fastest {} ranks by compute", std::min(opt.extremes, rec.rows.size()))),
                  opt.format);
    std::vector<std::size_t> listed(slow);
    listed.insert(listed.end(), fast.begin(), fast.end());
    out += volume_section(rec, listed, opt.format);
    out += render(distribution_table(rec), opt.format);
  }
  if (!rec.calls.empty()) out += render(mpi_call_table(rec, opt.all_ranks ? 0 : 10), opt.format);
  out += aggregate_text(rec, opt.format, opt.all_ranks);
  out += counter_section(rec, opt);
  out += topdown_text(rec, opt);
  out += running_fraction_text(rec, opt.format);
  return io_first ? out : out + render_measure_section(rec.measure, opt.format);
}

}  // namespace hpcsens::report
