#include "report/record_output.h"

#include <fmt/core.h>

#include <cmath>
#include <map>

#include "common/errors.h"
#include "report/byte_direction.h"
#include "report/callsite_view.h"
#include "report/counter_units.h"
#include "report/file_view.h"
#include "report/headline.h"
#include "report/html_page.h"
#include "report/measure_csv.h"
#include "report/memory_view.h"
#include "report/mpi_aggregate.h"
#include "report/run_report.h"
#include "report/running_fraction_view.h"
#include "report/run_scan_rows.h"
#include "report/table.h"
#include "topdown/bottleneck.h"
#include "topdown/metrics.h"

namespace hpcsens::report {
std::string csv_line(const std::vector<std::string>& cells) {
  std::string out;
  for (std::size_t i = 0; i < cells.size(); ++i) out += (i ? "," : "") + csv_cell(cells[i]);
  return out + "\n";
}

namespace {

using record::RunRecord;

// Shortest decimal text that reads back as the same double; non-finite values are empty cells.
std::string num(double v) { return std::isfinite(v) ? fmt::format("{}", v) : std::string(); }

// Every rank in full, one at a time: a 1,000,000-rank record is never held whole.
template <class F>
void each_rank(const RunScan& s, F&& f) {
  for (const auto& row : s.rows) f(s.rank_detail(row));
}

std::string ranks_csv(const RunScan& s) {
  std::string out = csv_line({"rank", "host", "pid", "wall_s", "compute_s", "mpi_s", "io_s", "io_bytes_read",
                              "io_bytes_written", "complete", "counters_status", "event_set", "multiplexed"});
  each_rank(s, [&](const record::RankRecord& r) {
    out += csv_line({std::to_string(r.rank), r.host, std::to_string(r.pid), num(r.wall_s), num(r.compute_s),
                     num(r.mpi_s), num(r.io_s), std::to_string(r.io_bytes_read), std::to_string(r.io_bytes_written),
                     r.complete ? "true" : "false", r.counters_status, r.event_set,
                     r.multiplexed ? "true" : "false"});
  });
  return out;
}

std::string summary_csv(const RunScan& s) {
  const RunRecord& rec = s.header;
  const auto im = imbalance_of(s);
  std::vector<std::pair<std::string, std::string>> rows = {
      {"nranks", std::to_string(rec.job.nranks)},
      {"ranks_recorded", std::to_string(s.rows.size())},
      {"job_s", num(rec.timing.job_s)},
      {"job_sync_s", rec.timing.job_sync_s ? num(*rec.timing.job_sync_s) : ""},
      {"barrier_s", num(rec.timing.barrier_s)},
      {"compute_mean_s", num(im.mean_s)},
      {"compute_min_s", num(im.min_s)},
      {"compute_max_s", num(im.max_s)},
      {"imbalance_max_over_mean", num(im.max_over_mean)},
      {"load_balance_efficiency", num(im.lbe)},
      {"communication_efficiency", num(im.comm_eff)},
      {"compute_cov", num(im.cov)},
      {"complete", rec.complete ? "true" : "false"},
      {"emulated", rec.emulated ? "true" : "false"},
  };
  for (auto& row : mpi_summary_csv_rows(mpi_aggregate(s))) rows.push_back(std::move(row));
  for (auto& row : memory_summary_csv_rows(s.measure.memory)) rows.push_back(std::move(row));
  std::string out = csv_line({"metric", "value"});
  for (const auto& [k, v] : rows) out += csv_line({k, v});
  return out;
}

std::string calls_csv(const RunScan& s) {
  // One column per direction (report/byte_direction.h): no column sums sent and received bytes.
  std::string out =
      csv_line({"rank", "class", "call", "count", "seconds", "bytes_sent", "bytes_received", "bytes_read",
                "bytes_written"});
  auto row = [&](const record::RankRecord& r, const char* cls, const std::string& name, const record::CallStats& c,
                 const Directed& d) {
    out += csv_line({std::to_string(r.rank), cls, name, std::to_string(c.count), num(c.seconds),
                     std::to_string(d.sent), std::to_string(d.received), std::to_string(d.read),
                     std::to_string(d.written)});
  };
  each_rank(s, [&](const record::RankRecord& r) {
    for (const auto& [name, c] : r.mpi_calls) row(r, "mpi", name, c, mpi_bytes(name, c.bytes, c.bytes_received));
    for (const auto& [name, c] : r.io_calls) row(r, "io", name, c, io_bytes(name, c.bytes));
  });
  return out;
}

std::string counters_csv(const RunScan& s) {
  // running_fraction_reason: why running_fraction is empty (or how it is known), per rank.
  std::string out =
      csv_line({"rank", "counter", "value", "multiplexed", "running_fraction", "unit", "running_fraction_reason"});
  each_rank(s, [&](const record::RankRecord& r) {
    const std::string why = record::running_fraction_reason(r);
    for (const auto& [name, v] : r.counters) {
      const auto f = r.counter_running_fraction.find(name);
      out += csv_line({std::to_string(r.rank), name, num(v), r.multiplexed ? "true" : "false",
                       f == r.counter_running_fraction.end() ? "" : num(f->second), counter_unit(name), why});
    }
  });
  return out;
}

const std::vector<std::string>& topdown_fields() {
  static const std::vector<std::string> f = {
      "retiring", "bad_speculation", "frontend_bound", "backend_bound", "memory_bound", "core_bound",
      "fetch_latency", "fetch_bandwidth", "branch_mispredicts", "machine_clears", "frontend_stalls",
      "backend_stalls", "smt_contention", "ipc", "ghz"};
  return f;
}

// One rank's Top-Down result; `table` caches the event table of `looked_up`.
nlohmann::json topdown_of(const record::RankRecord& r, topdown::TopdownTable& table, std::string& looked_up) {
  if (r.event_set != looked_up) table = topdown::table_by_name(looked_up = r.event_set);
  auto m = topdown::compute_metrics(table, r.event_set, r.counters);
  if (r.counters_status != "ok") topdown::mark_counters_failed(m, r.counters_status);
  if (r.multiplexed) topdown::refuse_multiplexed_remainder(m);
  nlohmann::json j = {{"ok", m.ok && m.mismeasured.empty()}, {"why_not", m.why_not},
                      {"flagged_path", m.ok ? topdown::path_text_with_gaps(m, topdown::flagged_path(m)) : ""},
                      {"level2_not_counted", m.ok ? topdown::level2_not_counted(m, topdown::flagged_path(m)) : ""},
                      {"stall_ratios", m.method == topdown::Method::kStallRatios}};
  std::string why = m.why_not;
  for (const auto& s : m.mismeasured) why += (why.empty() ? "mismeasured: " : "; ") + s;
  j["why_not"] = why;
  const std::optional<double>* vals[] = {&m.retiring, &m.bad_speculation, &m.frontend_bound, &m.backend_bound,
                                         &m.memory_bound, &m.core_bound, &m.fetch_latency, &m.fetch_bandwidth,
                                         &m.branch_mispredicts, &m.machine_clears, &m.frontend_stalls,
                                         &m.backend_stalls, &m.smt_contention, &m.ipc, &m.ghz};
  for (std::size_t k = 0; k < topdown_fields().size(); ++k)
    if (*vals[k] && std::isfinite(**vals[k])) j[topdown_fields()[k]] = **vals[k];
  return j;
}

std::string topdown_csv(const RunScan& s) {
  std::vector<std::string> header = {"rank", "event_set", "ok", "why_not", "flagged_path"};
  for (const auto& f : topdown_fields()) header.push_back(f);
  std::string out = csv_line(header);
  std::string looked_up;
  topdown::TopdownTable table = topdown::table_by_name(looked_up);
  each_rank(s, [&](const record::RankRecord& r) {
    const auto m = topdown_of(r, table, looked_up);
    std::vector<std::string> row = {std::to_string(r.rank), r.event_set,
                                    m["ok"].get<bool>() ? "true" : "false", m["why_not"].get<std::string>(),
                                    m["flagged_path"].get<std::string>()};
    for (const auto& f : topdown_fields())
      row.push_back(m.contains(f) && m[f].is_number() ? num(m[f].get<double>()) : "");
    out += csv_line(row);
  });
  return out;
}

}  // namespace

std::vector<nlohmann::json> topdown_per_rank(const RunRecord& rec) {
  std::vector<nlohmann::json> out;
  out.reserve(rec.ranks.size());
  std::string looked_up;
  topdown::TopdownTable table = topdown::table_by_name(looked_up);
  for (const auto& r : rec.ranks) out.push_back(topdown_of(r, table, looked_up));
  return out;
}

CsvTable parse_csv_table(const std::string& name) {
  if (name == "ranks") return CsvTable::kRanks;
  if (name == "summary") return CsvTable::kSummary;
  if (name == "calls") return CsvTable::kCalls;
  if (name == "counters") return CsvTable::kCounters;
  if (name == "topdown") return CsvTable::kTopdown;
  if (name == "partners") return CsvTable::kPartners;
  if (name == "msg_sizes") return CsvTable::kMsgSizes;
  if (name == "regions") return CsvTable::kRegions;
  if (name == "aggregate") return CsvTable::kAggregate;
  throw InputError("--table", "unknown table '" + name +
                                  "' (expected ranks, summary, calls, counters, topdown, timeline, callsites, files, partners, "
                                  "msg_sizes, regions, aggregate, callsite_stats or callsite_ranks)");
}

std::string tidy_csv(const RunScan& s, CsvTable table) {
  switch (table) {
    case CsvTable::kRanks: return ranks_csv(s);
    case CsvTable::kSummary: return summary_csv(s);
    case CsvTable::kCalls: return calls_csv(s);
    case CsvTable::kCounters: return counters_csv(s);
    case CsvTable::kPartners: return partners_csv(s);
    case CsvTable::kMsgSizes: return msg_sizes_csv(s);
    case CsvTable::kRegions: return regions_csv(s);
    case CsvTable::kAggregate: return aggregate_csv(s);
    case CsvTable::kTopdown: break;
  }
  return topdown_csv(s);
}

std::string tidy_csv(const RunRecord& rec, CsvTable table) { return tidy_csv(scan_of(rec), table); }

namespace {

// I/O by operation (reads, writes, syncs, metadata) and by interface called, over all ranks.
nlohmann::json io_json(const RunScan& scan) {
  nlohmann::json j = nlohmann::json::object();
  IoOps ops;
  for (const auto& c : scan.io_calls) ops.add(c.name, c.count, c.seconds, c.bytes);
  for (int i = 0; i < kIoOps; ++i)
    j["by_operation"][i == 0 ? "read" : i == 1 ? "write" : i == 2 ? "sync" : "meta"] = {
        {"seconds", ops.seconds[i]}, {"calls", ops.calls[i]}, {"bytes", ops.bytes[i]}};
  for (const auto& [cls, t] : scan.measure.io)
    j["by_interface"][cls] = {{"seconds", t.seconds}, {"calls", t.calls}, {"bytes", t.bytes}};
  return j;
}

// "Files by I/O time" as the text and the page show it: per (path, interface called) over ranks.
nlohmann::json files_json(const nlohmann::json& ranks, const std::string& source) {
  nlohmann::json out = nlohmann::json::array();
  for (const FileSummary& f : summarize_files(files_of(ranks, source).files)) {
    const FileCounts& c = f.counts;
    out.push_back({{"path", f.path}, {"interface", f.api}, {"ranks", f.ranks}, {"seconds", c.seconds()},
                   {"read_s", c.read_s}, {"write_s", c.write_s}, {"sync_s", c.sync_s}, {"meta_s", c.meta_s},
                   {"bytes_read", c.bytes_read}, {"bytes_written", c.bytes_written}, {"reads", c.reads},
                   {"writes", c.writes}, {"syncs", c.syncs}, {"opens", c.opens}, {"meta_ops", c.meta_ops},
                   {"slowest_s", f.slowest_s}, {"slowest_rank", f.slowest_rank}});
  }
  return out;
}

}  // namespace

nlohmann::json record_report_json(const RunRecord& rec, const std::string& source) {
  nlohmann::json j = record::to_json(rec);  // every section the reader kept, per-rank ones included
  const RunScan scan = scan_with_extras(rec);
  const auto im = imbalance_of(rec);
  nlohmann::json derived;
  derived["imbalance"] = {{"max_over_mean", im.max_over_mean}, {"lbe", im.lbe}, {"comm_eff", im.comm_eff},
                          {"cov", im.cov}, {"mean_s", im.mean_s}, {"min_s", im.min_s}, {"max_s", im.max_s},
                          {"slowest", im.slowest}};
  std::vector<double> compute, wall, mpi;
  for (const auto& r : rec.ranks) compute.push_back(r.compute_s), wall.push_back(r.wall_s), mpi.push_back(r.mpi_s);
  auto dist = [](std::vector<double> v) {
    const auto d = distribution_of(std::move(v));
    return nlohmann::json{{"min", d.min}, {"q1", d.q1}, {"median", d.median}, {"q3", d.q3}, {"max", d.max}};
  };
  derived["distribution_s"] = {{"compute", dist(compute)}, {"wall", dist(wall)}, {"mpi", dist(mpi)}};
  for (const CallTotal& c : scan.calls)
    derived["mpi_calls"][c.name] = {{"count", c.count}, {"seconds", c.seconds}, {"bytes_sent", c.bytes_sent},
                                    {"bytes_received", c.bytes_received}};
  derived["mpi_aggregate"] = aggregate_json(mpi_aggregate(scan));
  for (const auto& [name, total] : scan.counter_totals) derived["counter_units"][name] = counter_unit(name);
  derived["io"] = io_json(scan);
  derived["counter_running_fraction"] = running_fraction_json(running_fraction_summary(scan));
  if (auto memory = memory_totals_json(scan.measure.memory); !memory.is_null()) derived["memory"] = std::move(memory);
  if (j.contains("ranks")) derived["files"] = files_json(j["ranks"], source);
  if (j.contains("ranks")) {
    const auto [wall, mpi] = sum_wall_and_mpi(j["ranks"]);
    derived["callsites"] = callsite_json(summarize_sites(callsites_of(j["ranks"], source)), wall, mpi);
  }
  // Per-rank Top-Down, as `--format csv --table topdown` gives it, for ranks that counted a set.
  std::string looked_up;
  topdown::TopdownTable table = topdown::table_by_name(looked_up);
  for (const auto& r : rec.ranks) {
    if (r.event_set.rfind("topdown", 0) != 0) continue;
    nlohmann::json t = topdown_of(r, table, looked_up);
    t["rank"] = r.rank;
    t["event_set"] = r.event_set;
    derived["topdown"].push_back(std::move(t));
  }
  j["derived"] = std::move(derived);
  j["answer"] = html::answer(run_answer(run_facts(scan)));  // the same object every format renders
  return j;
}

nlohmann::json record_report_json_file(const std::string& path) {
  // The careful reader: it keeps every section of every rank (the fast one reads only the tables').
  return record_report_json(record::load_run_record(path), path);
}

}  // namespace hpcsens::report
