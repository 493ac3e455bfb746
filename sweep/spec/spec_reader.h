#pragma once
// The spec reader shared by the files that parse parts of the spec (spec.cpp, spec_array.cpp):
// every error carries file:line and the dotted field path.
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/errors.h"
#include "sweep/spec/spec.h"

namespace hpcsens::sweep::spec_detail {

// Every error carries file:line and the dotted field path, so a user fixes the spec in one go.
class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const YAML::Node& node, const std::string& field,
                         const std::string& problem) const {
    const int line = node.IsDefined() ? node.Mark().line + 1 : 0;
    fail_at(line, field, problem);
  }
  [[noreturn]] void fail_at(int line, const std::string& field, const std::string& problem) const {
    std::string where = source_;
    if (line > 0) where += ":" + std::to_string(line);
    if (!field.empty()) where += ": " + field;
    throw InputError(where, problem);
  }

  void check_keys(const YAML::Node& map, const std::string& field,
                  const std::set<std::string>& allowed) const {
    if (!map.IsMap()) fail(map, field, "must be a mapping");
    // yaml-cpp keeps both entries of a repeated key and lookups see only the first, so a
    // repeated key would silently drop the later value: refuse it like an unknown one.
    std::set<std::string> seen;
    for (const auto& kv : map) {
      if (!kv.first.IsScalar()) fail(kv.first, join(field, "?"), "a key must be a plain name, not a list or mapping");
      const auto key = kv.first.Scalar();
      if (!seen.insert(key).second)
        fail(kv.first, join(field, key), "duplicate key (it is already given above in this mapping)");
      if (!allowed.count(key)) {
        std::string list;
        for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
        fail(kv.first, join(field, key), "unknown field (allowed: " + list + ")");
      }
    }
  }

  static std::string join(const std::string& parent, const std::string& key) {
    return parent.empty() ? key : parent + "." + key;
  }

  std::string str(const YAML::Node& n, const std::string& field) const {
    if (!n.IsScalar()) fail(n, field, "must be a string");
    return n.as<std::string>();
  }
  double num(const YAML::Node& n, const std::string& field) const {
    if (!n.IsScalar()) fail(n, field, "must be a number");
    double v = 0;
    try {
      v = n.as<double>();
    } catch (const YAML::Exception&) {
      fail(n, field, "must be a number, got '" + n.Scalar() + "'");
    }
    if (!std::isfinite(v)) fail(n, field, "must be a finite number, got '" + n.Scalar() + "'");
    return v;
  }
  double positive(const YAML::Node& n, const std::string& field) const {
    const double v = num(n, field);
    if (!(v > 0)) fail(n, field, "must be > 0, got " + n.Scalar());
    return v;
  }
  double non_negative(const YAML::Node& n, const std::string& field) const {
    const double v = num(n, field);
    if (!(v >= 0)) fail(n, field, "must be >= 0, got " + n.Scalar());
    return v;
  }
  // A number within [lo, hi]: values outside are typos (MHz for GHz, a stray exponent).
  double in_range(const YAML::Node& n, const std::string& field, double lo, double hi,
                  const std::string& unit = "") const {
    const double v = num(n, field);
    if (!(v >= lo && v <= hi))
      fail(n, field, fmt_range(lo, hi, unit) + ", got " + n.Scalar());
    return v;
  }
  static std::string fmt_range(double lo, double hi, const std::string& unit) {
    std::ostringstream o;
    o << "must be within [" << lo << ", " << hi << "]" << (unit.empty() ? "" : " " + unit);
    return o.str();
  }
  long integer(const YAML::Node& n, const std::string& field, long lo, long hi) const {
    const long v = integer(n, field, lo);
    if (v > hi) fail(n, field, "must be <= " + std::to_string(hi) + ", got " + n.Scalar());
    return v;
  }
  long integer(const YAML::Node& n, const std::string& field, long lo) const {
    if (!n.IsScalar()) fail(n, field, "must be an integer");
    long v = 0;
    try {
      v = n.as<long>();
    } catch (const YAML::Exception&) {
      fail(n, field, "must be an integer, got '" + n.Scalar() + "'");
    }
    if (v < lo) fail(n, field, "must be >= " + std::to_string(lo) + ", got " + n.Scalar());
    return v;
  }
  bool boolean(const YAML::Node& n, const std::string& field) const {
    if (!n.IsScalar()) fail(n, field, "must be true or false");
    try {
      return n.as<bool>();
    } catch (const YAML::Exception&) {
      fail(n, field, "must be true or false, got '" + n.Scalar() + "'");
    }
  }
  std::vector<std::string> strings(const YAML::Node& n, const std::string& field) const {
    if (!n.IsSequence() || n.size() == 0) fail(n, field, "must be a non-empty list of strings");
    std::vector<std::string> out;
    for (std::size_t i = 0; i < n.size(); ++i)
      out.push_back(str(n[i], field + "[" + std::to_string(i) + "]"));
    return out;
  }

 private:
  std::string source_;
};


// knobs.network (spec_network.cpp).
void parse_network(const Reader& r, const YAML::Node& list, std::vector<NetworkSetting>& out);

// execution, array_max_running and sbatch (spec_array.cpp), with their cross-field rules.
void parse_execution(const Reader& r, const YAML::Node& root, SweepSpec& s);

// knobs.memory_backend and knobs.mem_bw (spec_resctrl.cpp).
void parse_memory_backend(const Reader& r, const YAML::Node& knobs, SweepSpec& s);
// The rules a resctrl sweep must meet, once the whole spec is read.
void check_resctrl_spec(const Reader& r, const YAML::Node& root, const SweepSpec& s);
// backends.sysfs_root and backends.resctrl_root (and the resctrl tree under a given sysfs_root)
// held to the owner rules of output paths (sweep/knobs/knob_root.h), at their line.
void check_knob_roots(const Reader& r, const YAML::Node& root, const SweepSpec& s);

}  // namespace hpcsens::sweep::spec_detail
