#pragma once
// Lenient reads of one field of an energy section (a missing or mistyped field gives the fallback):
// the section was written by hpcsens itself, and a reader of it must never throw on an old one.
#include <string>

#include <nlohmann/json.hpp>

namespace hpcsens::energy::fields {

inline double num(const nlohmann::json& j, const char* key, double fallback = 0) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : fallback;
}
inline std::string str(const nlohmann::json& j, const char* key, const std::string& fallback = "") {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}
inline bool flag(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}

}  // namespace hpcsens::energy::fields
