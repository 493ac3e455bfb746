#pragma once
// How the model's outputs write numbers, shared so that every table, CSV file and JSON document
// shows a missing (non-finite) value the same way.
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <optional>
#include <string>

namespace hpcsens::model {

// A fraction as a percentage: percent(0.1234) == "12.34%".
inline std::string percent(double fraction, int decimals = 2) {
  return fmt::format("{:.{}f}%", 100 * fraction, decimals);
}

// A table cell: "{:g}", or "-" when not finite (a rate the sweep did not measure).
inline std::string table_number(double v) { return std::isfinite(v) ? fmt::format("{:g}", v) : "-"; }

// Shortest text that reads back as the same double; empty (a missing CSV cell) when not finite.
inline std::string csv_number(double v) { return std::isfinite(v) ? fmt::format("{}", v) : ""; }
inline std::string csv_number(const std::optional<double>& v) { return v ? csv_number(*v) : ""; }

// A memory bandwidth in words: "6.0043 GB/s", or, for a sweep with STREAM off, `missing`.
inline std::string gbs_text(double gbs, const char* missing = "memory bandwidth not measured") {
  return std::isfinite(gbs) ? fmt::format("{:g} GB/s", gbs) : missing;
}

// JSON has no NaN or infinity: a missing value is null.
inline nlohmann::json json_number(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); }
inline nlohmann::json json_number(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

}  // namespace hpcsens::model
