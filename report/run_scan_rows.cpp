#include "report/run_scan_rows.h"


#include <algorithm>

#include "common/errors.h"
#include "report/byte_direction.h"
#include "report/record_reader.h"

namespace hpcsens::report {

void validate_rows(const RunScan& s, const std::string& src) {
  record::validate_ranks(s.header, s.rows.size(), [&](std::size_t i) {
    const RankRow& k = s.rows[i];
    return record::RankCheck{k.rank, k.wall_s, k.mpi_s, k.io_s, k.compute_s};
  }, src);
}

record::RankRecord rank_from_text(const std::string& text, const RankRow& row, const std::string& source) {
  const std::string_view object(text.data() + row.source, row.length);
  return read_rank_text(object, text.capacity() - row.source - row.length, source);
}

}  // namespace hpcsens::report

namespace hpcsens::report {
namespace {

std::uint16_t intern(std::vector<std::string>& names, const std::string& s) {
  const auto it = std::find(names.begin(), names.end(), s);
  if (it != names.end()) return static_cast<std::uint16_t>(it - names.begin());
  names.push_back(s);
  return static_cast<std::uint16_t>(names.size() - 1);
}

std::uint32_t counter_index(RunScan& s, const std::string& name) {
  const auto it = std::find(s.counter_names.begin(), s.counter_names.end(), name);
  if (it != s.counter_names.end()) return static_cast<std::uint32_t>(it - s.counter_names.begin());
  s.counter_names.push_back(name);
  return static_cast<std::uint32_t>(s.counter_names.size() - 1);
}

void add_rank(RunScan& s, const record::RankRecord& r, std::size_t index) {
  RankRow row;
  row.rank = r.rank;
  row.complete = r.complete;
  row.multiplexed = r.multiplexed;
  row.event_set = intern(s.names, r.event_set);
  row.counters_status = intern(s.names, r.counters_status);
  row.running_reason = intern(s.names, r.counter_running_fraction_reason);
  row.wall_s = r.wall_s, row.mpi_s = r.mpi_s, row.io_s = r.io_s, row.compute_s = r.compute_s;
  row.io_bytes_read = r.io_bytes_read, row.io_bytes_written = r.io_bytes_written;
  row.counters_begin = static_cast<std::uint32_t>(s.counters.size());
  row.source = index;
  for (const auto& [name, fraction] : r.counter_running_fraction) {
    row.min_running = std::min(row.min_running, fraction);
    row.any_running = true;
  }
  for (const auto& call : r.mpi_calls) {
    const std::string& name = call.first;  // a named reference: lambdas may not capture bindings (clang)
    const record::CallStats& c = call.second;
    auto it = std::find_if(s.calls.begin(), s.calls.end(), [&](const CallTotal& t) { return t.name == name; });
    if (it == s.calls.end()) it = s.calls.insert(s.calls.end(), CallTotal{name});
    it->count += c.count;
    const Directed d = mpi_bytes(name, c.bytes, c.bytes_received);
    it->bytes_sent += d.sent;
    it->bytes_received += d.received;
    it->seconds += c.seconds;
    if (c.seconds > it->max_s) it->max_s = c.seconds, it->max_rank = r.rank;
  }
  for (const auto& [name, c] : r.io_calls) add_io_call(s.io_calls, name, c.count, c.bytes, c.seconds);
  for (const auto& [name, v] : r.counters) {
    s.counters.emplace_back(counter_index(s, name), v);
    CounterTotal& a = s.counter_totals[name];
    ++a.ranks;
    a.sum += v;
    if (v < a.min) a.min = v, a.min_rank = r.rank;
    if (v > a.max) a.max = v, a.max_rank = r.rank;
  }
  s.rows.push_back(row);
}

}  // namespace

void add_measure_json(MeasureTotals& m, const nlohmann::json& rank, const std::string& host, double busy_s,
                      std::int64_t rank_number) {
  const auto num = [](const nlohmann::json& o, const char* k) {
    return o.contains(k) && o[k].is_number() ? o[k].get<double>() : 0.0;
  };
  if (const auto mem = rank.find("memory"); mem != rank.end() && mem->is_object()) {
    const auto kib = [&](const char* k) -> std::int64_t {
      return mem->contains(k) && (*mem)[k].is_number_integer() ? (*mem)[k].get<std::int64_t>() : -1;
    };
    if (rank_number < 0 && rank.contains("rank") && rank["rank"].is_number_integer()) rank_number = rank["rank"].get<std::int64_t>();
    m.memory.add_rank(host, rank_number, kib("peak_rss_kib"), kib("node_total_kib"));
  }
  if (rank.contains("io") && rank["io"].is_object())
    for (const auto& [cls, c] : rank["io"].items()) {
      if (!c.is_object()) continue;
      IoClassTotal& t = m.io[cls];
      t.seconds += num(c, "seconds");
      t.calls += static_cast<std::uint64_t>(num(c, "calls"));
      t.bytes += static_cast<std::uint64_t>(num(c, "bytes"));
      m.any = true;
    }
  if (!rank.contains("cpu") || !rank["cpu"].is_object()) return;
  const nlohmann::json& c = rank["cpu"];
  m.cpu.add_rank(host, static_cast<std::int64_t>(num(c, "online")), num(c, "used_s"), busy_s,
                 c.contains("run_delay_s") && c["run_delay_s"].is_number() ? c["run_delay_s"].get<double>() : -1.0);
}

RunScan scan_of(const record::RunRecord& rec) {
  RunScan s;
  s.names = {"ok", ""};
  record::RunRecord& h = s.header;
  h.schema = rec.schema, h.job = rec.job, h.config = rec.config, h.timing = rec.timing;
  h.imbalance = rec.imbalance, h.counters_status = rec.counters_status, h.complete = rec.complete;
  h.emulated = rec.emulated, h.extra = rec.extra;
  s.rows.reserve(rec.ranks.size());
  for (std::size_t i = 0; i < rec.ranks.size(); ++i) add_rank(s, rec.ranks[i], i);
  auto ranks = std::make_shared<const std::vector<record::RankRecord>>(rec.ranks);
  s.rank_detail = [ranks](const RankRow& row) { return (*ranks)[row.source]; };
  s.rank_json = [ranks](const RankRow& row) { return record::to_json((*ranks)[row.source]); };
  return s;
}

RunScan scan_with_extras(const record::RunRecord& rec) {
  RunScan s = scan_of(rec);
  for (const auto& r : rec.ranks) add_measure_json(s.measure, r.extra, r.host, r.wall_s - r.io_s, r.rank);
  return s;
}

std::map<std::string, double> counters_of(const RunScan& s, std::size_t i) {
  const std::size_t end = i + 1 < s.rows.size() ? s.rows[i + 1].counters_begin : s.counters.size();
  std::map<std::string, double> out;
  for (std::size_t c = s.rows[i].counters_begin; c < end; ++c)
    out.emplace(s.counter_names[s.counters[c].first], s.counters[c].second);
  return out;
}

}  // namespace hpcsens::report
