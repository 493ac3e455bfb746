#include "report/record_reader.h"

#include <simdjson.h>

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

#include "common/json_bounds.h"
#include "common/json_input.h"


namespace hpcsens::report {
namespace {

using simdjson::dom::element;
using simdjson::dom::object;

// Thrown inside the fast path only: "use the careful reader".
struct NotFast {};

element field(const object& o, std::string_view key) {
  element e;
  if (o.at_key(key).get(e) != simdjson::SUCCESS) throw NotFast{};
  return e;
}

bool has(const object& o, std::string_view key) {
  element e;
  return o.at_key(key).get(e) == simdjson::SUCCESS && !e.is_null();
}

double to_double(element e) {
  double v;
  if (e.get_double().get(v) != simdjson::SUCCESS) throw NotFast{};
  return v;
}

std::uint64_t to_u64(element e) {
  std::uint64_t v;
  if (e.get_uint64().get(v) != simdjson::SUCCESS) throw NotFast{};
  return v;
}

int to_int(element e) {
  std::int64_t v;
  if (e.get_int64().get(v) != simdjson::SUCCESS || v < INT32_MIN || v > INT32_MAX) throw NotFast{};
  return static_cast<int>(v);
}

bool to_bool(element e) {
  bool v;
  if (e.get_bool().get(v) != simdjson::SUCCESS) throw NotFast{};
  return v;
}

std::string to_string(element e) {
  std::string_view v;
  if (e.get_string().get(v) != simdjson::SUCCESS) throw NotFast{};
  return std::string(v);
}

object to_object(element e) {
  object o;
  if (e.get_object().get(o) != simdjson::SUCCESS) throw NotFast{};
  return o;
}

// Small free-form sections (config, extras) keep their nlohmann form.
nlohmann::json to_nlohmann(element e) { return nlohmann::json::parse(simdjson::minify(e)); }

double opt_double(const object& o, std::string_view k, double fallback) {
  return has(o, k) ? to_double(field(o, k)) : fallback;
}
std::string opt_string(const object& o, std::string_view k, const std::string& fallback) {
  return has(o, k) ? to_string(field(o, k)) : fallback;
}

std::vector<std::string> string_list(const object& o, std::string_view k) {
  std::vector<std::string> out;
  if (!has(o, k)) return out;
  simdjson::dom::array a;
  if (field(o, k).get_array().get(a) != simdjson::SUCCESS) throw NotFast{};
  for (element e : a) out.push_back(to_string(e));
  return out;
}

bool is_null(element e) { return e.is_null(); }

// One pass over the rank's fields, dispatched by key: looking each key up (twice, for optional
// ones) scanned every rank's ~20 keys ~25 times, the largest cost of reading 100,000 ranks.
std::map<std::string, record::CallStats> calls_of(element e) {
  std::map<std::string, record::CallStats> out;
  for (auto [name, v] : to_object(e)) {
    record::CallStats c;
    unsigned seen = 0;
    for (auto [k, x] : to_object(v)) {
      if (k == "count") c.count = to_u64(x), seen |= 1;
      else if (k == "seconds") c.seconds = to_double(x), seen |= 2;
      else if (k == "bytes" && !is_null(x)) c.bytes = to_u64(x);
      else if (k == "bytes_received" && !is_null(x)) c.bytes_received = to_u64(x);
    }
    if (seen != 3) throw NotFast{};
    out.emplace_hint(out.end(), std::string(name), c);
  }
  return out;
}

std::map<std::string, double> numbers_of(element e) {
  std::map<std::string, double> out;
  for (auto [name, v] : to_object(e)) out.emplace_hint(out.end(), std::string(name), to_double(v));
  return out;
}

record::RankRecord rank_of(element e) {
  record::RankRecord r;
  unsigned required = 0;  // rank, wall_s, mpi_s, io_s, compute_s, mpi_calls
  for (auto [k, v] : to_object(e)) {
    if (k == "rank") r.rank = to_int(v), required |= 1;
    else if (k == "wall_s") r.wall_s = to_double(v), required |= 2;
    else if (k == "mpi_s") r.mpi_s = to_double(v), required |= 4;
    else if (k == "io_s") r.io_s = to_double(v), required |= 8;
    else if (k == "compute_s") r.compute_s = to_double(v), required |= 16;
    else if (k == "mpi_calls") r.mpi_calls = calls_of(v), required |= 32;
    else if (k == "io_calls") r.io_calls = calls_of(v);
    else if (is_null(v)) continue;  // optional fields: null is the same as absent
    else if (k == "host") r.host = to_string(v);
    else if (k == "pid") r.pid = to_int(v);
    else if (k == "t0") r.t0 = to_double(v);
    else if (k == "t1") r.t1 = to_double(v);
    else if (k == "t2") r.t2 = to_double(v);
    else if (k == "t3") r.t3 = to_double(v);
    else if (k == "io_bytes_read") r.io_bytes_read = to_u64(v);
    else if (k == "io_bytes_written") r.io_bytes_written = to_u64(v);
    else if (k == "counters") r.counters = numbers_of(v);
    else if (k == "counters_status") r.counters_status = to_string(v);
    else if (k == "event_set") r.event_set = to_string(v);
    else if (k == "multiplexed") r.multiplexed = to_bool(v);
    else if (k == "counter_running_fraction") r.counter_running_fraction = numbers_of(v);
    else if (k == "counter_running_fraction_reason") r.counter_running_fraction_reason = to_string(v);
    else if (k == "complete") r.complete = to_bool(v);
  }
  // A missing mpi_calls is allowed (empty); the other five are required.
  if ((required & 31) != 31) throw NotFast{};
  return r;
}

// simdjson keeps duplicate keys and finds the first; nlohmann would keep the last. A record with
// a duplicate key is refused (by the careful reader, which names it), so look for any.
bool has_duplicate_keys(element e) {
  simdjson::dom::array a;
  if (e.get_array().get(a) == simdjson::SUCCESS) {
    for (element x : a)
      if (has_duplicate_keys(x)) return true;
    return false;
  }
  object o;
  if (e.get_object().get(o) != simdjson::SUCCESS) return false;
  std::vector<std::string_view> keys;
  for (auto [key, value] : o) {
    keys.push_back(key);
    if (has_duplicate_keys(value)) return true;
  }
  std::sort(keys.begin(), keys.end());
  return std::adjacent_find(keys.begin(), keys.end()) != keys.end();
}

record::RunRecord fast_read(const simdjson::padded_string& text) {
  simdjson::dom::parser parser;
  // The careful reader's depth limit (simdjson counts one more): deeper goes to it, for its message.
  element doc;
  if (parser.allocate(text.size(), json_input::kMaxDepth + 1) != simdjson::SUCCESS || parser.parse(text).get(doc) != simdjson::SUCCESS)
    throw NotFast{};
  if (has_duplicate_keys(doc)) throw NotFast{};
  const object top = to_object(doc);
  record::RunRecord rec;
  rec.schema = to_string(field(top, "schema"));
  if (rec.schema != record::kRunSchema) throw NotFast{};
  const object job = to_object(field(top, "job"));
  rec.job.command = string_list(job, "command");
  rec.job.nranks = to_int(field(job, "nranks"));
  rec.job.launcher = opt_string(job, "launcher", "");
  rec.job.mpi_library = opt_string(job, "mpi_library", "");
  rec.job.hosts = string_list(job, "hosts");
  rec.job.start_utc = opt_string(job, "start_utc", "");
  rec.job.program = opt_string(job, "program", "");  // the page title (html_run.cpp run_title)
  if (has(top, "config")) {
    rec.config = to_nlohmann(field(top, "config"));
    if (!rec.config.is_object()) throw NotFast{};
  }
  const object t = to_object(field(top, "timing"));
  rec.timing.job_s = to_double(field(t, "job_s"));
  if (has(t, "job_sync_s")) rec.timing.job_sync_s = to_double(field(t, "job_sync_s"));
  rec.timing.barrier_s = opt_double(t, "barrier_s", 0);
  rec.timing.method = opt_string(t, "method", "");
  simdjson::dom::array ranks;
  if (field(top, "ranks").get_array().get(ranks) != simdjson::SUCCESS) throw NotFast{};
  rec.ranks.reserve(ranks.size());
  for (element e : ranks) rec.ranks.push_back(rank_of(e));
  if (has(top, "imbalance")) {
    const object im = to_object(field(top, "imbalance"));
    rec.imbalance.max_over_mean = opt_double(im, "max_over_mean", 0);
    rec.imbalance.lbe = opt_double(im, "lbe", 0);
    rec.imbalance.comm_eff = opt_double(im, "comm_eff", 0);
    rec.imbalance.cov = opt_double(im, "cov", 0);
    rec.imbalance.mean_s = opt_double(im, "mean_s", 0);
    rec.imbalance.max_s = opt_double(im, "max_s", 0);
    rec.imbalance.min_s = opt_double(im, "min_s", 0);
    if (has(im, "slowest")) {
      simdjson::dom::array a;
      if (field(im, "slowest").get_array().get(a) != simdjson::SUCCESS) throw NotFast{};
      for (element e : a) rec.imbalance.slowest.push_back(to_int(e));
    }
  }
  rec.counters_status = opt_string(top, "counters_status", "ok");
  rec.complete = has(top, "complete") ? to_bool(field(top, "complete")) : true;
  rec.emulated = has(top, "emulated") ? to_bool(field(top, "emulated")) : false;
  static constexpr std::string_view known[] = {"schema", "job", "config", "timing", "ranks",
                                               "imbalance", "counters_status", "complete", "emulated"};
  for (auto [key, value] : top) {
    bool is_known = false;
    for (auto k : known) is_known = is_known || key == k;
    if (!is_known) rec.extra[std::string(key)] = to_nlohmann(value);
  }
  return rec;
}

}  // namespace

record::RankRecord read_rank_text(std::string_view object, std::size_t padding, const std::string& source) {
  if (padding >= simdjson::SIMDJSON_PADDING) {
    thread_local simdjson::dom::parser parser;  // one per report, not one per rank
    element e;
    try {
      // The careful reader's depth limit on the same bytes (simdjson counts one more).
      if (parser.max_depth() != json_input::kMaxDepth + 1 &&
          parser.allocate(std::max<std::size_t>(object.size(), 1), json_input::kMaxDepth + 1) != simdjson::SUCCESS)
        throw NotFast{};
      if (parser.parse(object.data(), object.size(), false).get(e) == simdjson::SUCCESS && !has_duplicate_keys(e))
        return rank_of(e);
    } catch (const NotFast&) {
    }
  }
  return record::rank_from_json(json_input::parse_strict(object, source), source);
}

record::RunRecord read_run_record(const std::string& path) {
  // Read once, bounded and regular-file only (a FIFO or /dev/zero must not hang us), and hand the
  // same bytes to the careful reader when the fast one gives up.
  return read_run_record_text(record::read_record_file(path), path);
}

record::RunRecord read_run_record_text(const std::string& text, const std::string& path) {
  try {
    record::RunRecord rec = fast_read(simdjson::padded_string(text));
    record::validate(rec, path);  // the same checks, and messages, as load_run_record
    return rec;
  } catch (const NotFast&) {
  } catch (const simdjson::simdjson_error&) {
  } catch (const nlohmann::json::exception&) {
  }
  return record::run_record_from_text(text, path);
}

}  // namespace hpcsens::report
