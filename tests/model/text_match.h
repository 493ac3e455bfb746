#pragma once
// Reading the model's plain-language outputs in tests: which sentences mention what.
#include <algorithm>
#include <string>
#include <vector>

namespace hpcsens::model::testing {

inline std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += x + "\n";
  return s;
}

inline bool any_contains(const std::vector<std::string>& v, const std::string& needle) {
  return std::any_of(v.begin(), v.end(), [&](const std::string& s) { return s.find(needle) != std::string::npos; });
}

}  // namespace hpcsens::model::testing
