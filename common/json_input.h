#pragma once
// Reading JSON that users hand us (run records, partial rank files): one strict parser so every
// reader refuses the same things with messages that say where.
//   - duplicate keys in an object are refused (nlohmann keeps the last, simdjson the first: a
//     record must not mean two things);
//   - numbers beyond the range of a double are refused, naming the field;
//   - syntax errors name the byte offset (nlohmann's message) and the field being read;
//   - nesting deeper than 256 levels, strings over 1 MiB and numbers over 128 characters are
//     refused, naming the field (common/json_bounds.h).
// All failures are InputError("<source>", "...").
#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace hpcsens::json_input {

// Parses `text`; `source` names it in errors (a file name).
nlohmann::json parse_strict(std::string_view text, const std::string& source);

// safe_file::read_input_file(path, max_bytes) + parse_strict.
nlohmann::json load_strict(const std::string& path, std::size_t max_bytes = std::size_t{1} << 30);

}  // namespace hpcsens::json_input
