// One On-Demand pass over a run record file (see run_scan.h). Every token of every rank is parsed
// with the careful reader's rules and every object's keys are checked for repeats, so the scan
// accepts what record::load_run_record accepts; where it is in doubt the careful reader decides.
#include "report/run_scan.h"

#include <simdjson.h>

#include <algorithm>
#include <filesystem>

#include "common/errors.h"
#include "common/json_input.h"
#include "common/safe_file.h"
#include "report/byte_direction.h"
#include "report/measure_scan.h"
#include "report/od_values.h"
#include "report/run_scan_rows.h"

namespace hpcsens::report {
namespace {

using simdjson::SUCCESS;
using simdjson::ondemand::json_type;

// Above this size a doubt is reported by the scan itself: the careful reader would hold the
// whole record as a DOM (about ten times the file) just to word the message.
constexpr std::size_t kCarefulLimit = std::size_t{128} << 20;
// The scan keeps about 100 bytes per rank besides the file, so it reads records past
// record::kMaxRecordBytes: a 1,000,000-rank record with partners and histograms is ~1.3 GiB.
constexpr std::size_t kMaxScanBytes = std::size_t{4} << 30;

class Scanner {
 public:
  Scanner(const std::string& text, const std::string& path) : text_(text), path_(path) {
    s_.names = {"ok", ""};
  }
  RunScan run();

 private:
  void rank(od::value v, std::size_t i);
  void rank_field(std::string_view k, od::value x, RankRow& row, unsigned& required, const std::string& where);
  void calls(od::value v, std::string_view key, const RankRow* row);
  void counters(od::value v, const std::string& where);
  void end_rank(const RankRow& row);
  void running(od::value v, const std::string& where, RankRow& row);
  std::uint16_t intern(std::string_view s);
  template <class T>
  static std::size_t index_of(std::vector<T>& names, std::string_view s, std::size_t& hint);

  const std::string& text_;
  const std::string& path_;
  RunScan s_;
  MeasureScan measure_;
  std::vector<CounterTotal> counter_totals_;  // parallel to s_.counter_names
  std::size_t call_hint_ = 0, counter_hint_ = 0;
  struct PendingCall {
    std::size_t index;
    std::uint64_t count, bytes, bytes_received;
    double seconds;
  };
  std::vector<PendingCall> pending_calls_;  // this rank's MPI calls
};

const std::string& name_of(const std::string& s) { return s; }

}  // namespace

void add_io_call(std::vector<IoCallTotal>& calls, std::string_view name, std::uint64_t count, std::uint64_t bytes,
                 double seconds) {
  auto it = std::find_if(calls.begin(), calls.end(), [&](const IoCallTotal& t) { return t.name == name; });
  if (it == calls.end()) it = calls.insert(calls.end(), IoCallTotal{std::string(name)});
  it->count += count, it->bytes += bytes, it->seconds += seconds;
}

namespace {

const std::string& name_of(const CallTotal& c) { return c.name; }

// Names repeat rank after rank in the same order: try the one after the last match first.
template <class T>
std::size_t Scanner::index_of(std::vector<T>& names, std::string_view s, std::size_t& hint) {
  for (std::size_t n = 0; n < names.size(); ++n) {
    const std::size_t i = (hint + n) % names.size();
    if (name_of(names[i]) == s) return hint = i + 1, i;
  }
  if constexpr (std::is_same_v<T, std::string>) names.emplace_back(s);
  else names.push_back(T{std::string(s)});
  hint = 0;
  return names.size() - 1;
}

std::uint16_t Scanner::intern(std::string_view s) {
  for (std::size_t i = 0; i < s_.names.size(); ++i)
    if (s_.names[i] == s) return static_cast<std::uint16_t>(i);
  if (s_.names.size() >= 0xffff) throw od::Doubt{"ranks", "too many distinct event sets and statuses"};
  s_.names.emplace_back(s);
  return static_cast<std::uint16_t>(s_.names.size() - 1);
}

// `row` set: MPI calls, summed per name; null: I/O calls, checked only.
void Scanner::calls(od::value v, std::string_view key, const RankRow* row) try {
  od::each_field(v, "", key, [&](std::string_view name, od::value call) {
    std::uint64_t count = 0, bytes = 0, received = 0;
    double seconds = 0;
    unsigned seen = 0;
    od::each_field(call, name, name, [&](std::string_view k, od::value x) {  // `name`: relative path
      if (k == "count") count = od::to_u64(x, name, k), seen |= 1;
      else if (k == "seconds") seconds = od::to_double(x, name, k), seen |= 2;
      else if (k == "bytes" && !od::is_null(x)) bytes = od::to_u64(x, name, k);
      else if (k == "bytes_received" && !od::is_null(x)) received = od::to_u64(x, name, k);
      else od::walk(x, name);
    });
    if (seen != 3) throw od::Doubt{std::string(name), "missing field 'count' or 'seconds'"};
    if (row) pending_calls_.push_back({index_of(s_.calls, name, call_hint_), count, bytes, received, seconds});
    else add_io_call(s_.io_calls, name, count, bytes, seconds);
  });
} catch (od::Doubt& d) {
  d.where = std::string(key) + (d.where.empty() ? "" : "." + d.where);
  throw;
}

// The sums that name a rank wait for the end of its object ("rank" sorts after "counters").
void Scanner::end_rank(const RankRow& row) {
  for (const PendingCall& c : pending_calls_) {
    CallTotal& t = s_.calls[c.index];
    t.count += c.count;
    const Directed d = mpi_bytes(t.name, c.bytes, c.bytes_received);
    t.bytes_sent += d.sent;
    t.bytes_received += d.received;
    t.seconds += c.seconds;
    if (c.seconds > t.max_s) t.max_s = c.seconds, t.max_rank = row.rank;
  }
  pending_calls_.clear();
  for (std::size_t i = row.counters_begin; i < s_.counters.size(); ++i) {
    const auto [index, value] = s_.counters[i];
    if (index >= counter_totals_.size()) counter_totals_.resize(index + 1);
    CounterTotal& a = counter_totals_[index];
    ++a.ranks;
    a.sum += value;
    if (value < a.min) a.min = value, a.min_rank = row.rank;
    if (value > a.max) a.max = value, a.max_rank = row.rank;
  }
  measure_.end_rank(row.rank, row.wall_s - row.io_s);
}

void Scanner::counters(od::value v, const std::string& where) {
  od::each_field(v, where, "counters", [&](std::string_view name, od::value x) {
    const double value = od::to_double(x, where, name);
    s_.counters.emplace_back(static_cast<std::uint32_t>(index_of(s_.counter_names, name, counter_hint_)), value);
  });
}

void Scanner::running(od::value v, const std::string& where, RankRow& row) {
  od::each_field(v, where, "counter_running_fraction", [&](std::string_view name, od::value x) {
    row.min_running = std::min(row.min_running, od::to_double(x, where, name));
    row.any_running = true;
  });
}

void Scanner::rank_field(std::string_view k, od::value x, RankRow& row, unsigned& required, const std::string& where) {
  if (k == "rank") row.rank = od::to_int(x, where, k), required |= 1;
  else if (k == "wall_s") row.wall_s = od::to_double(x, where, k), required |= 2;
  else if (k == "mpi_s") row.mpi_s = od::to_double(x, where, k), required |= 4;
  else if (k == "io_s") row.io_s = od::to_double(x, where, k), required |= 8;
  else if (k == "compute_s") row.compute_s = od::to_double(x, where, k), required |= 16;
  else if (k == "mpi_calls") calls(x, k, &row);
  else if (k == "io_calls") calls(x, k, nullptr);
  else if (od::is_null(x)) return;  // optional fields: null is the same as absent
  else if (k == "host") measure_.host(od::to_string(x, where, k));
  else if (k == "pid") (void)od::to_int(x, where, k);
  else if (k == "t0" || k == "t1" || k == "t2" || k == "t3") (void)od::to_double(x, where, k);
  else if (k == "io_bytes_read") row.io_bytes_read = od::to_u64(x, where, k);
  else if (k == "io_bytes_written") row.io_bytes_written = od::to_u64(x, where, k);
  else if (k == "counters") counters(x, where);
  else if (k == "counters_status") row.counters_status = intern(od::to_string(x, where, k));
  else if (k == "event_set") row.event_set = intern(od::to_string(x, where, k));
  else if (k == "multiplexed") row.multiplexed = od::to_bool(x, where, k);
  else if (k == "counter_running_fraction") running(x, where, row);
  else if (k == "counter_running_fraction_reason") row.running_reason = intern(od::to_string(x, where, k));
  else if (k == "complete") row.complete = od::to_bool(x, where, k);
  else if (!measure_.add(k, x, path_, where)) od::walk(x, where);
}

void Scanner::rank(od::value v, std::size_t i) try {
  const std::string where = "ranks[" + std::to_string(i) + "]";
  RankRow row;
  row.event_set = 1;  // ""
  row.counters_begin = static_cast<std::uint32_t>(s_.counters.size());
  const char* at = nullptr;
  if (v.current_location().get(at) != SUCCESS) throw od::Doubt{where, "not valid JSON"};
  row.source = static_cast<std::uint64_t>(at - text_.data());
  unsigned required = 0;
  od::KeySet keys;
  for (auto f : od::to_object(v, where, "")) {
    od::field fl;
    if (std::move(f).get(fl) != SUCCESS) throw od::Doubt{where, "not valid JSON"};
    const std::string_view k = od::key_of(fl);
    keys.add(k, where);
    rank_field(k, fl.value(), row, required, where);
  }
  if (required != 31) throw od::Doubt{where, "a required field is missing"};
  end_rank(row);
  s_.rows.push_back(row);
} catch (od::Doubt& d) {
  if (d.where.rfind("ranks[", 0) != 0) d.where = "ranks[" + std::to_string(i) + "]" + (d.where.empty() ? "" : "." + d.where);
  throw;
}

// A top-level value's own text, to hand the small sections to the careful reader.
std::string_view raw_text(od::value v, const std::string& where) {
  json_type t;
  std::string_view raw;
  if (v.type().get(t) != SUCCESS) throw od::Doubt{where, "not valid JSON"};
  bool ok = false;
  if (t == json_type::object) ok = od::to_object(v, where, "").raw_json().get(raw) == SUCCESS;
  else if (t == json_type::array) ok = od::to_array(v, where, "").raw_json().get(raw) == SUCCESS;
  else ok = (raw = v.raw_json_token(), od::walk(v, where), true);
  if (!ok) throw od::Doubt{where, "not valid JSON"};
  return raw;
}

RunScan Scanner::run() {
  simdjson::ondemand::parser parser;
  simdjson::ondemand::document doc;
  simdjson::ondemand::object top;
  if (parser.iterate(text_).get(doc) != SUCCESS || doc.get_object().get(top) != SUCCESS)
    throw od::Doubt{"", "not a JSON object"};
  // Everything but the ranks is small: the careful reader reads it (same rules, same messages),
  // with an empty ranks array in its place.
  std::string head = "{";
  od::KeySet keys;
  for (auto f : top) {
    od::field fl;
    if (std::move(f).get(fl) != SUCCESS) throw od::Doubt{"", "not valid JSON"};
    const std::string_view k = od::key_of(fl);
    keys.add(k, "(top level)");
    head += (head.size() > 1 ? "," : "") + nlohmann::json(std::string(k)).dump() + ":";
    if (k != "ranks") {
      head += raw_text(fl.value(), std::string(k));
      continue;
    }
    head += "[]";
    std::size_t i = 0;
    for (auto r : od::to_array(fl.value(), "", "ranks")) {
      od::value v;
      if (std::move(r).get(v) != SUCCESS) throw od::Doubt{"ranks", "not valid JSON"};
      rank(v, i++);
      // The rank's bytes end where the next token (',' or ']') starts.
      const char* next = nullptr;
      if (doc.current_location().get(next) != SUCCESS) throw od::Doubt{"ranks", "not valid JSON"};
      s_.rows.back().length = static_cast<std::uint32_t>(next - text_.data() - s_.rows.back().source);
    }
  }
  const char* after = nullptr;  // in bounds: something follows the record's object
  if (doc.current_location().get(after) == SUCCESS) throw od::Doubt{"", "text after the record"};
  head += "}";
  try {
    s_.header = record::run_from_json(json_input::parse_strict(head, path_), path_);
  } catch (const InputError& e) {
    throw od::Doubt{"", e.what(), true};
  }
  s_.counter_totals.clear();
  for (std::size_t i = 0; i < counter_totals_.size(); ++i) s_.counter_totals[s_.counter_names[i]] = counter_totals_[i];
  s_.measure = measure_.finish();
  return std::move(s_);
}

}  // namespace

RunScan scan_run_record(const std::string& path) { return scan_run_record(path, kCarefulLimit); }

RunScan scan_run_record(const std::string& path, std::size_t careful_limit) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(path, "is a directory, not a run record file");
  return scan_run_record_text(safe_file::read_input_file(path, kMaxScanBytes), path, careful_limit);
}

RunScan scan_run_record_text(std::string bytes, const std::string& path, std::size_t careful_limit) {
  auto text = std::make_shared<std::string>(std::move(bytes));
  if (text->capacity() - text->size() < simdjson::SIMDJSON_PADDING) text->reserve(text->size() + simdjson::SIMDJSON_PADDING);
  try {
    RunScan s = Scanner(*text, path).run();
    validate_rows(s, path);  // after the scan, as load_run_record validates after parsing
    s.rank_detail = [text, path](const RankRow& row) { return rank_from_text(*text, row, path); };
    s.rank_json = [text](const RankRow& row) {
      return nlohmann::json::parse(std::string_view(text->data() + row.source, row.length));
    };
    return s;
  } catch (const od::Doubt& d) {
    if (text->size() > careful_limit && d.names_file) throw InputError(d.what);
    if (text->size() > careful_limit) throw InputError(path + (d.where.empty() ? "" : ": " + d.where), d.what);
  } catch (const simdjson::simdjson_error& e) {
    if (text->size() > careful_limit) throw InputError(path, std::string("not valid JSON (") + e.what() + ")");
  }
  RunScan s = scan_of(record::run_record_from_text(*text, path));  // its InputError names file + field
  s.measure = measure_only(*text, path);
  return s;
}

}  // namespace hpcsens::report
