#pragma once
// The `ranks` array of a record file as plain JSON, for the per-rank sections read whole (the
// timeline, call sites); the compact reader (run_scan.h) skips them.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace hpcsens::report {

// Largest record whose ranks the text report reads whole for those sections.
inline constexpr std::uintmax_t kRawRanksMax = std::uintmax_t{64} << 20;

// InputError naming `path` when it is not a JSON object with a `ranks` array.
nlohmann::json read_raw_ranks(const std::string& path);

}  // namespace hpcsens::report
