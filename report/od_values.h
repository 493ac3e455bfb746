#pragma once
// Checked reads of simdjson On-Demand values for the record scan: every token is parsed with the
// rules of the careful reader (record/run_record.cpp, common/json_input.cpp), and keys are checked
// for duplicates on the way. Anything the scan cannot settle throws Doubt: the caller hands the
// bytes to the careful reader, whose message is the one users see.
#include <simdjson.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hpcsens::report::od {

using simdjson::ondemand::field;
using simdjson::ondemand::value;

// Why the fast scan gave up (used as the message only when the careful reader cannot be run).
struct Doubt {
  std::string where, what;
  bool names_file = false;  // `what` is a whole message (from the careful reader)
};

// A key as written, or its unescaped form when it holds an escape (both can name one key).
std::string_view key_of(field& f);

// Keys seen in one object; add() throws Doubt on a repeat. No allocation below 32 keys (one
// set per object, several objects per rank).
class KeySet {
 public:
  void add(std::string_view key, std::string_view where);

 private:
  std::string_view small_[32];
  std::size_t n_ = 0;
  std::vector<std::string_view> more_;
};

bool is_null(value& v);
double to_double(value v, std::string_view where, std::string_view key);
// Integers as record::integer_value reads them: integral numbers within range, floats included.
std::int64_t to_int64(value v, std::string_view where, std::string_view key, std::int64_t lo, std::int64_t hi);
std::uint64_t to_u64(value v, std::string_view where, std::string_view key);
inline int to_int(value v, std::string_view where, std::string_view key) {
  return static_cast<int>(to_int64(v, where, key, INT32_MIN, INT32_MAX));
}
bool to_bool(value v, std::string_view where, std::string_view key);
std::string_view to_string(value v, std::string_view where, std::string_view key);
simdjson::ondemand::object to_object(value v, std::string_view where, std::string_view key);
simdjson::ondemand::array to_array(value v, std::string_view where, std::string_view key);

// Parses the whole value (every number, string and literal) and checks its objects for
// duplicate keys, keeping nothing.
void walk(value v, std::string_view where);

// f(key, value) for each member of the object `v` (field `key` of `where`), keys checked
// against each other.
template <class F>
void each_field(value v, std::string_view where, std::string_view key, F&& f) {
  KeySet keys;
  for (auto x : to_object(v, where, key)) {
    field fl;
    if (std::move(x).get(fl) != simdjson::SUCCESS) throw Doubt{std::string(where), "not valid JSON"};
    const std::string_view k = key_of(fl);
    keys.add(k, where);
    f(k, fl.value());
  }
}

// f(value) for each element of the array `v`.
template <class F>
void each_element(value v, std::string_view where, std::string_view key, F&& f) {
  for (auto x : to_array(v, where, key)) {
    value e;
    if (std::move(x).get(e) != simdjson::SUCCESS) throw Doubt{std::string(where), "not valid JSON"};
    f(e);
  }
}

}  // namespace hpcsens::report::od
