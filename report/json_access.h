#pragma once
// Checked access to JSON inputs of the HTML report (models, predictions, mixes): a missing or
// mistyped field throws InputError naming the file and the field path, never a bare
// nlohmann exception.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "common/errors.h"

namespace hpcsens::report::json_access {

using nlohmann::json;

inline const json& at(const json& j, const std::string& key, const std::string& file, const std::string& path) {
  if (!j.is_object() || !j.contains(key))
    throw InputError(file, "field '" + path + (path.empty() ? "" : ".") + key + "' is missing");
  return j[key];
}

inline double number(const json& j, const std::string& key, const std::string& file, const std::string& path) {
  const json& v = at(j, key, file, path);
  if (!v.is_number()) throw InputError(file, "field '" + path + (path.empty() ? "" : ".") + key + "' is not a number");
  return v.get<double>();
}

inline const json& array(const json& j, const std::string& key, const std::string& file, const std::string& path) {
  const json& v = at(j, key, file, path);
  if (!v.is_array()) throw InputError(file, "field '" + path + (path.empty() ? "" : ".") + key + "' is not an array");
  return v;
}

inline std::string text(const json& j, const std::string& key, const std::string& fallback = "") {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : fallback;
}

// The whole number >= 0 at `key` of a record's per-rank entry `where` (e.g. "rec.json: ranks[rank 1].files[0]"),
// else InputError naming where.key.
inline bool is_whole(const json& v) {
  return v.is_number_integer() && (v.is_number_unsigned() || v.get<std::int64_t>() >= 0);
}
inline std::uint64_t whole(const json& j, const char* key, const std::string& where) {
  const auto it = j.find(key);
  if (it == j.end() || !is_whole(*it)) throw InputError(where + "." + key, "expected a whole number >= 0");
  return it->get<std::uint64_t>();
}

// A number that may be absent or null (e.g. a LOOCV error that could not be computed).
inline json maybe(const json& j, const std::string& key) {
  return j.is_object() && j.contains(key) && j[key].is_number() ? j[key] : json(nullptr);
}

}  // namespace hpcsens::report::json_access
