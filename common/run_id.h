#pragma once
// Run ids name record files (<out>/<run_id>.json, <run_id>.rankN.partial.json) and come from the
// environment (HPCSENS_RUN_ID) or the sweep plan. An id is a single file name component: letters,
// digits and . _ - + : @ =, at most 128 characters, not starting with '.', no "..". So it cannot
// leave its directory ("../x", "a/b"), hide among our temporaries (".x") or carry control bytes.
#include <string>
#include <string_view>

namespace hpcsens {

inline constexpr std::size_t kMaxRunIdLength = 128;

// "" when `id` is acceptable, else why not (without quoting the id: callers escape and quote it).
inline std::string run_id_problem(std::string_view id) {
  if (id.empty()) return "is empty";
  if (id.size() > kMaxRunIdLength) return "is longer than " + std::to_string(kMaxRunIdLength) + " characters";
  if (id.front() == '.') return "starts with '.'";
  if (id.find("..") != std::string_view::npos) return "contains '..'";
  for (const char c : id) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-' || c == '+' || c == ':' || c == '@' || c == '=';
    if (!ok) return c == '/' ? "contains '/'" : "contains a character other than letters, digits and . _ - + : @ =";
  }
  return "";
}

}  // namespace hpcsens
