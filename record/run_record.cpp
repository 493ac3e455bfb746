#include "record/run_record.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "common/errors.h"
#include "common/json_input.h"
#include "common/safe_file.h"
#include "record/record_text.h"

namespace hpcsens::record {
namespace {

using nlohmann::json;

json calls_to_json(const std::map<std::string, CallStats>& calls) {
  json out = json::object();
  for (const auto& [name, s] : calls) {
    out[name] = {{"count", s.count}, {"seconds", s.seconds}, {"bytes", s.bytes}};
    if (s.bytes_received != 0) out[name]["bytes_received"] = s.bytes_received;
  }
  return out;
}

// Field access that names the record and the key path when something is wrong.
template <class T>
T need(const json& j, const char* key, const std::string& where) {
  auto it = j.find(key);
  if (it == j.end()) throw InputError(where, std::string("missing field '") + key + "'");
  try {
    return it->get<T>();
  } catch (const json::exception&) {
    throw InputError(where, std::string("field '") + key + "' has the wrong type");
  }
}

template <class T>
T opt(const json& j, const char* key, T fallback, const std::string& where) {
  return j.contains(key) && !j.at(key).is_null() ? need<T>(j, key, where) : fallback;
}

// An integer of type T from a JSON number, refused (naming the field) unless it is integral and
// within T's range: nlohmann's get<int> on 1e10 or get<uint64_t> on 1.8e20 would be undefined.
template <class T>
T integer_value(const json& v, const std::string& field, const std::string& where) {
  constexpr auto lo = std::numeric_limits<T>::min();
  constexpr auto hi = std::numeric_limits<T>::max();
  const std::string range = "an integer in " + std::to_string(lo) + ".." + std::to_string(hi);
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u <= static_cast<std::uint64_t>(hi)) return static_cast<T>(u);
  } else if (v.is_number_integer()) {
    const auto i = v.get<std::int64_t>();
    if (i >= 0 || std::is_signed_v<T>)
      if (static_cast<long double>(i) >= lo && static_cast<long double>(i) <= hi) return static_cast<T>(i);
  } else if (v.is_number_float()) {
    const double d = v.get<double>();
    // hi + 1 is a power of two, exact as a double; hi itself may not be.
    const double hi_plus_1 = 2.0 * static_cast<double>(hi / 2 + 1);
    if (std::isfinite(d) && d == std::floor(d) && d >= static_cast<double>(lo) && d < hi_plus_1)
      return static_cast<T>(d);
  } else {
    throw InputError(where, "field '" + field + "' has the wrong type (expected " + range + ")");
  }
  throw InputError(where, "field '" + field + "' is " + v.dump() + ", expected " + range);
}

template <class T>
T need_int(const json& j, const char* key, const std::string& where) {
  auto it = j.find(key);
  if (it == j.end()) throw InputError(where, std::string("missing field '") + key + "'");
  return integer_value<T>(*it, key, where);
}

template <class T>
T opt_int(const json& j, const char* key, T fallback, const std::string& where) {
  return j.contains(key) && !j.at(key).is_null() ? need_int<T>(j, key, where) : fallback;
}

std::vector<int> opt_int_list(const json& j, const char* key, const std::string& where) {
  std::vector<int> out;
  if (!j.contains(key) || j.at(key).is_null()) return out;
  if (!j.at(key).is_array()) throw InputError(where, std::string("field '") + key + "' must be an array");
  for (const auto& v : j.at(key)) out.push_back(integer_value<int>(v, key, where));
  return out;
}

const json& need_object(const json& j, const char* key, const std::string& where) {
  if (!j.contains(key)) throw InputError(where, std::string("missing field '") + key + "'");
  if (!j.at(key).is_object()) throw InputError(where, std::string("field '") + key + "' must be an object");
  return j.at(key);
}

std::map<std::string, CallStats> calls_from_json(const json& j, const std::string& where) {
  std::map<std::string, CallStats> out;
  if (!j.is_object()) throw InputError(where, "expected an object of call name -> {count, seconds, bytes}");
  for (const auto& [name, v] : j.items()) {
    const std::string w = where + "." + name;
    if (!v.is_object()) throw InputError(w, "expected an object {count, seconds, bytes}");
    out[name] = CallStats{need_int<std::uint64_t>(v, "count", w), need<double>(v, "seconds", w),
                          opt_int<std::uint64_t>(v, "bytes", 0, w),
                          opt_int<std::uint64_t>(v, "bytes_received", 0, w)};
  }
  return out;
}

}  // namespace

std::string running_fraction_reason(bool any_counters, const std::string& status, bool any_fraction,
                                    const std::string& reason) {
  if (!any_counters) return status == "ok" || status.empty() ? "no counters: none were counted" : "no counters: " + status;
  if (!reason.empty()) return reason;
  return any_fraction ? "" : "not recorded (the writer of this record gave no fraction)";
}

std::string running_fraction_reason(const RankRecord& r) {
  return running_fraction_reason(!r.counters.empty(), r.counters_status, !r.counter_running_fraction.empty(),
                                 r.counter_running_fraction_reason);
}

json to_json(const RankRecord& r) {
  json j = {{"rank", r.rank},
            {"host", r.host},
            {"pid", r.pid},
            {"t0", r.t0},
            {"t1", r.t1},
            {"t2", r.t2},
            {"t3", r.t3},
            {"wall_s", r.wall_s},
            {"mpi_s", r.mpi_s},
            {"io_s", r.io_s},
            {"compute_s", r.compute_s},
            {"io_bytes_read", r.io_bytes_read},
            {"io_bytes_written", r.io_bytes_written},
            {"mpi_calls", calls_to_json(r.mpi_calls)},
            {"io_calls", calls_to_json(r.io_calls)},
            {"counters", r.counters},
            {"counters_status", r.counters_status},
            {"event_set", r.event_set},
            {"multiplexed", r.multiplexed},
            {"counter_running_fraction", r.counter_running_fraction.empty() ? json(nullptr)
                                                                             : json(r.counter_running_fraction)},
            {"complete", r.complete}};
  // Not known is said (null and why), never an empty object that reads as "never descheduled".
  if (const std::string why = running_fraction_reason(r); !why.empty()) j["counter_running_fraction_reason"] = why;
  for (const auto& [k, v] : r.extra.items()) j[k] = v;
  return j;
}

json to_json(const RunRecord& r) {
  json timing = {{"job_s", r.timing.job_s},
                 {"barrier_s", r.timing.barrier_s},
                 {"method", r.timing.method}};
  timing["job_sync_s"] = r.timing.job_sync_s ? json(*r.timing.job_sync_s) : json(nullptr);
  json ranks = json::array();
  for (const auto& rk : r.ranks) ranks.push_back(to_json(rk));
  json j = {{"schema", r.schema},
            {"job",
             {{"command", r.job.command},
              {"nranks", r.job.nranks},
              {"launcher", r.job.launcher},
              {"mpi_library", r.job.mpi_library},
              {"hosts", r.job.hosts},
              {"start_utc", r.job.start_utc}}},
            {"config", r.config},
            {"timing", timing},
            {"ranks", ranks},
            {"imbalance",
             {{"max_over_mean", r.imbalance.max_over_mean},
              {"lbe", r.imbalance.lbe},
              {"comm_eff", r.imbalance.comm_eff},
              {"cov", r.imbalance.cov},
              {"mean_s", r.imbalance.mean_s},
              {"max_s", r.imbalance.max_s},
              {"min_s", r.imbalance.min_s},
              {"slowest", r.imbalance.slowest}}},
            {"counters_status", r.counters_status},
            {"complete", r.complete},
            {"emulated", r.emulated}};
  if (!r.job.program.empty()) j["job"]["program"] = r.job.program;
  for (const auto& [k, v] : r.extra.items()) j[k] = v;
  return j;
}

namespace {
// The members of `j` not named in `known`, into `extra`: sections this struct does not model.
template <std::size_t N>
void keep_unknown(const json& j, const char* const (&known)[N], json* extra) {
  for (const auto& [k, v] : j.items())
    if (std::find_if(std::begin(known), std::end(known), [&](const char* n) { return k == n; }) == std::end(known))
      (*extra)[k] = v;
}
}  // namespace

RankRecord rank_from_json(const json& j, const std::string& where) {
  if (!j.is_object()) throw InputError(where, "expected a rank object");
  RankRecord r;
  r.rank = need_int<int>(j, "rank", where);
  const std::string w = where + ": ranks[" + std::to_string(r.rank) + "]";
  r.host = opt<std::string>(j, "host", "", w);
  r.pid = opt_int<int>(j, "pid", 0, w);
  r.t0 = opt<double>(j, "t0", 0, w);
  r.t1 = opt<double>(j, "t1", 0, w);
  r.t2 = opt<double>(j, "t2", 0, w);
  r.t3 = opt<double>(j, "t3", 0, w);
  r.wall_s = need<double>(j, "wall_s", w);
  r.mpi_s = need<double>(j, "mpi_s", w);
  r.io_s = need<double>(j, "io_s", w);
  r.compute_s = need<double>(j, "compute_s", w);
  r.io_bytes_read = opt_int<std::uint64_t>(j, "io_bytes_read", 0, w);
  r.io_bytes_written = opt_int<std::uint64_t>(j, "io_bytes_written", 0, w);
  if (j.contains("mpi_calls")) r.mpi_calls = calls_from_json(j.at("mpi_calls"), w + ".mpi_calls");
  if (j.contains("io_calls")) r.io_calls = calls_from_json(j.at("io_calls"), w + ".io_calls");
  r.counters = opt<std::map<std::string, double>>(j, "counters", {}, w);
  r.counters_status = opt<std::string>(j, "counters_status", "ok", w);
  r.event_set = opt<std::string>(j, "event_set", "", w);
  r.multiplexed = opt<bool>(j, "multiplexed", false, w);
  r.counter_running_fraction =
      opt<std::map<std::string, double>>(j, "counter_running_fraction", {}, w);
  r.counter_running_fraction_reason = opt<std::string>(j, "counter_running_fraction_reason", "", w);
  r.complete = opt<bool>(j, "complete", true, w);
  static const char* const known[] = {"rank", "host", "pid", "t0", "t1", "t2", "t3", "wall_s", "mpi_s", "io_s",
                                      "compute_s", "io_bytes_read", "io_bytes_written", "mpi_calls", "io_calls",
                                      "counters", "counters_status", "event_set", "multiplexed",
                                      "counter_running_fraction", "counter_running_fraction_reason",
                                      "complete"};
  keep_unknown(j, known, &r.extra);
  return r;
}

RunRecord run_from_json(const json& j, const std::string& src) {
  if (!j.is_object()) throw InputError(src, "not a JSON object");
  RunRecord r;
  r.schema = need<std::string>(j, "schema", src);
  if (r.schema != kRunSchema)
    throw InputError(src, "field 'schema' is '" + r.schema + "', expected '" + kRunSchema + "'");
  const json& job = need_object(j, "job", src);
  const std::string jw = src + ": job";
  r.job.command = opt<std::vector<std::string>>(job, "command", {}, jw);
  r.job.nranks = need_int<int>(job, "nranks", jw);
  r.job.launcher = opt<std::string>(job, "launcher", "", jw);
  r.job.mpi_library = opt<std::string>(job, "mpi_library", "", jw);
  r.job.hosts = opt<std::vector<std::string>>(job, "hosts", {}, jw);
  r.job.start_utc = opt<std::string>(job, "start_utc", "", jw);
  r.job.program = opt<std::string>(job, "program", "", jw);
  if (j.contains("config")) {
    if (!j.at("config").is_object()) throw InputError(src, "field 'config' must be an object");
    r.config = j.at("config");
  }
  const json& t = need_object(j, "timing", src);
  const std::string tw = src + ": timing";
  r.timing.job_s = need<double>(t, "job_s", tw);
  if (t.contains("job_sync_s") && !t.at("job_sync_s").is_null())
    r.timing.job_sync_s = need<double>(t, "job_sync_s", tw);
  r.timing.barrier_s = opt<double>(t, "barrier_s", 0, tw);
  r.timing.method = opt<std::string>(t, "method", "", tw);
  if (!j.contains("ranks") || !j.at("ranks").is_array())
    throw InputError(src, "missing or non-array field 'ranks'");
  r.ranks.reserve(j.at("ranks").size());
  for (const auto& rk : j.at("ranks")) r.ranks.push_back(rank_from_json(rk, src));
  if (j.contains("imbalance")) {
    const json& im = need_object(j, "imbalance", src);
    const std::string iw = src + ": imbalance";
    r.imbalance.max_over_mean = opt<double>(im, "max_over_mean", 0, iw);
    r.imbalance.lbe = opt<double>(im, "lbe", 0, iw);
    r.imbalance.comm_eff = opt<double>(im, "comm_eff", 0, iw);
    r.imbalance.cov = opt<double>(im, "cov", 0, iw);
    r.imbalance.mean_s = opt<double>(im, "mean_s", 0, iw);
    r.imbalance.max_s = opt<double>(im, "max_s", 0, iw);
    r.imbalance.min_s = opt<double>(im, "min_s", 0, iw);
    r.imbalance.slowest = opt_int_list(im, "slowest", iw);
  }
  r.counters_status = opt<std::string>(j, "counters_status", "ok", src);
  r.complete = opt<bool>(j, "complete", true, src);
  r.emulated = opt<bool>(j, "emulated", false, src);
  static const char* const known[] = {"schema", "job", "config", "timing", "ranks", "imbalance",
                                      "counters_status", "complete", "emulated"};
  keep_unknown(j, known, &r.extra);
  return r;
}

void validate(const RunRecord& r, const std::string& src) {
  validate_ranks(r, r.ranks.size(), [&](std::size_t i) {
    const RankRecord& k = r.ranks[i];
    return RankCheck{k.rank, k.wall_s, k.mpi_s, k.io_s, k.compute_s};
  }, src);
}

void validate_ranks(const RunRecord& r, std::size_t count, const std::function<RankCheck(std::size_t)>& rank_at,
                    const std::string& src) {
  const auto n = static_cast<std::size_t>(std::max(r.job.nranks, 0));
  if (count > n)
    throw InputError(src, "job.nranks is " + std::to_string(r.job.nranks) + " but 'ranks' has " +
                              std::to_string(count) + " entries");
  if (count < n && r.complete)
    throw InputError(src, "job.nranks is " + std::to_string(r.job.nranks) + " but 'ranks' has only " +
                              std::to_string(count) + " entries in a record marked complete");
  std::vector<bool> seen(n, false);
  for (std::size_t i = 0; i < count; ++i) {
    const RankCheck k = rank_at(i);
    const std::string w = src + ": ranks[" + std::to_string(i) + "]";
    if (k.rank < 0 || static_cast<std::size_t>(k.rank) >= n)
      throw InputError(w, "field 'rank' is " + std::to_string(k.rank) + ", outside 0.." +
                              std::to_string(r.job.nranks - 1) + " (job.nranks)");
    if (seen[static_cast<std::size_t>(k.rank)])
      throw InputError(w, "field 'rank': rank " + std::to_string(k.rank) + " appears twice");
    seen[static_cast<std::size_t>(k.rank)] = true;
    const std::pair<const char*, double> times[] = {
        {"wall_s", k.wall_s}, {"mpi_s", k.mpi_s}, {"io_s", k.io_s}, {"compute_s", k.compute_s}};
    for (const auto& [name, v] : times)
      if (!std::isfinite(v) || v < 0)
        throw InputError(w, std::string("field '") + name + "' must be a finite, non-negative time");
  }
  if (!std::isfinite(r.timing.job_s) || r.timing.job_s < 0)
    throw InputError(src + ": timing", "field 'job_s' must be a finite, non-negative time");
}

RunRecord run_record_from_text(std::string_view text, const std::string& path) {
  RunRecord r = run_from_json(json_input::parse_strict(text, path), path);
  validate(r, path);
  return r;
}

std::string read_record_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw InputError(path, "is a directory, not a run record file");
  return safe_file::read_input_file(path, kMaxRecordBytes);
}

RunRecord load_run_record(const std::string& path) {
  return run_record_from_text(read_record_file(path), path);
}

bool record_text(const json& j, std::string* text, std::string* error) {
  try {
    // Outside strings are stored encoded (text::encode_outside) and so are valid UTF-8; should
    // one slip through unencoded, the record is still written (with U+FFFD) rather than lost.
    *text = j.dump(1, ' ', false, json::error_handler_t::replace);
    text->push_back('\n');
    return true;
  } catch (const std::exception& e) {
    if (error) *error = std::string("cannot serialise record: ") + e.what();
    return false;
  }
}

bool write_json_atomic(const std::string& path, const json& j, std::string* error, bool create_dir) {
  std::string text;
  if (!record_text(j, &text, error)) return false;
  std::string err = safe_file::write_file_atomic(path, text, create_dir);
  if (err.empty()) return true;
  if (error) *error = std::move(err);
  return false;
}

}  // namespace hpcsens::record
