#include "report/od_values.h"

#include <algorithm>
#include <cmath>

#include "common/json_bounds.h"

namespace hpcsens::report::od {
namespace {

using simdjson::SUCCESS;
using simdjson::ondemand::json_type;

[[noreturn]] void doubt(std::string_view where, std::string_view key, const char* what) {
  throw Doubt{std::string(where), "field '" + std::string(key) + "' " + what};
}

// The bounds of the careful reader (common/json_bounds.h), so the scan never accepts what it
// refuses: a number token longer than it reads is handed over to it.
void check_number_length(value& v, std::string_view where, std::string_view key) {
  std::string_view raw = v.raw_json_token();
  while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\n' || raw.back() == '\r' || raw.back() == '\t'))
    raw.remove_suffix(1);
  if (raw.size() > json_input::kMaxNumberChars) doubt(where, key, "is a number longer than hpcsens reads");
}

}  // namespace

std::string_view key_of(field& f) {
  const char* p = f.key().raw();
  const char* q = p;
  while (*q != '"' && *q != '\\') ++q;  // stage 1 checked every string is closed
  if (*q == '"' && static_cast<std::size_t>(q - p) > json_input::kMaxStringBytes)
    throw Doubt{"", "a key is longer than hpcsens reads"};
  if (*q == '"') return {p, static_cast<std::size_t>(q - p)};
  std::string_view k;
  if (f.unescaped_key().get(k) != SUCCESS) throw Doubt{"", "a key cannot be read"};
  if (k.size() > json_input::kMaxStringBytes) throw Doubt{"", "a key is longer than hpcsens reads"};
  return k;
}

void KeySet::add(std::string_view key, std::string_view where) {
  // Rank objects have about 25 keys and most objects fewer: a linear look is the fast one.
  if (std::find(small_, small_ + n_, key) != small_ + n_ || std::find(more_.begin(), more_.end(), key) != more_.end())
    throw Doubt{std::string(where), "duplicate key '" + std::string(key) + "'"};
  if (n_ < std::size(small_)) small_[n_++] = key;
  else more_.push_back(key);
}

bool is_null(value& v) {
  json_type t;
  return v.type().get(t) == SUCCESS && t == json_type::null;
}

double to_double(value v, std::string_view where, std::string_view key) {
  check_number_length(v, where, key);
  double d;
  if (v.get_double().get(d) != SUCCESS) doubt(where, key, "is not a number");
  return d;
}

std::int64_t to_int64(value v, std::string_view where, std::string_view key, std::int64_t lo, std::int64_t hi) {
  check_number_length(v, where, key);
  std::int64_t i;
  if (v.get_int64().get(i) == SUCCESS) {
    if (i < lo || i > hi) doubt(where, key, "is out of range");
    return i;
  }
  double d;  // 3.0 or 1e2: integral floats are integers to the careful reader too
  if (v.get_double().get(d) != SUCCESS || !std::isfinite(d) || d != std::floor(d) ||
      d < static_cast<double>(lo) || d > static_cast<double>(hi))
    doubt(where, key, "is not an integer in range");
  return static_cast<std::int64_t>(d);
}

std::uint64_t to_u64(value v, std::string_view where, std::string_view key) {
  check_number_length(v, where, key);
  std::uint64_t u;
  if (v.get_uint64().get(u) == SUCCESS) return u;
  double d;
  if (v.get_double().get(d) != SUCCESS || !std::isfinite(d) || d != std::floor(d) || d < 0 || d >= 0x1p64)
    doubt(where, key, "is not a non-negative integer in range");
  return static_cast<std::uint64_t>(d);
}

bool to_bool(value v, std::string_view where, std::string_view key) {
  bool b;
  if (v.get_bool().get(b) != SUCCESS) doubt(where, key, "is not true or false");
  return b;
}

std::string_view to_string(value v, std::string_view where, std::string_view key) {
  std::string_view s;
  if (v.get_string().get(s) != SUCCESS) doubt(where, key, "is not a string");
  if (s.size() > json_input::kMaxStringBytes) doubt(where, key, "is a string longer than hpcsens reads");
  return s;
}

simdjson::ondemand::object to_object(value v, std::string_view where, std::string_view key) {
  simdjson::ondemand::object o;
  if (v.get_object().get(o) != SUCCESS) doubt(where, key, "is not an object");
  return o;
}

simdjson::ondemand::array to_array(value v, std::string_view where, std::string_view key) {
  simdjson::ondemand::array a;
  if (v.get_array().get(a) != SUCCESS) doubt(where, key, "is not an array");
  return a;
}

namespace {

// Recursion bounded by the careful reader's depth limit, counted from the document's root as it
// counts (a container at depth d is the d-th one open): deeper input is handed to it, and its
// message (file, field, limit) is the one users see. 20,000 nested arrays overflowed the stack.
void walk_at(value v, std::string_view where, std::size_t depth) {
  json_type t;
  if (v.type().get(t) != SUCCESS) throw Doubt{std::string(where), "not valid JSON"};
  const bool container = t == json_type::object || t == json_type::array;
  if (container && (depth >= json_input::kMaxDepth || v.current_depth() > static_cast<int32_t>(json_input::kMaxDepth)))
    throw Doubt{std::string(where), "nested deeper than hpcsens reads"};
  switch (t) {
    case json_type::object: {
      KeySet keys;
      for (auto f : to_object(v, where, "")) {
        field fl;
        if (std::move(f).get(fl) != SUCCESS) throw Doubt{std::string(where), "not valid JSON"};
        keys.add(key_of(fl), where);
        walk_at(fl.value(), where, depth + 1);
      }
      return;
    }
    case json_type::array:
      for (auto e : to_array(v, where, "")) {
        value x;
        if (std::move(e).get(x) != SUCCESS) throw Doubt{std::string(where), "not valid JSON"};
        walk_at(x, where, depth + 1);
      }
      return;
    case json_type::number: (void)to_double(v, where, ""); return;
    case json_type::string: (void)to_string(v, where, ""); return;
    case json_type::boolean: (void)to_bool(v, where, ""); return;
    case json_type::null:
      if (!v.is_null()) throw Doubt{std::string(where), "not valid JSON"};
      return;
  }
}

}  // namespace

void walk(value v, std::string_view where) { walk_at(v, where, 0); }

}  // namespace hpcsens::report::od
