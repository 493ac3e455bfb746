#pragma once
// Bounds on JSON that users (or other users) hand us, checked before any parser builds anything:
// nesting depth, string length and number length. Every reader that walks a value recursively
// (nlohmann's copy and dump, the report's on-demand walker) then recurses at most kMaxDepth
// levels, whatever the file: 20,000 nested arrays fit in a 42 KiB record and used to overflow the
// stack. One linear pass without recursion or allocation beyond the path of the offender.
#include <cstddef>
#include <string>
#include <string_view>

namespace hpcsens::json_input {

// Records nest about 6 levels, models and predictions fewer; 256 leaves room for anything real.
inline constexpr std::size_t kMaxDepth = 256;
// A job's argument may be 128 KiB (MAX_ARG_STRLEN), up to 4 times that once stored losslessly.
inline constexpr std::size_t kMaxStringBytes = std::size_t{1} << 20;
// A double needs at most 24 characters and an integer 20; 128 is what a person could mean.
inline constexpr std::size_t kMaxNumberChars = 128;

// "" when `text` keeps the bounds, else "field '<path>': <what is too large> (byte N); <limit>".
// Tolerant of bad syntax (the parser reports that in its own words); what it cannot make sense
// of it leaves alone.
std::string bounds_problem(std::string_view text);

// Throws InputError(source, bounds_problem(text)) when it is not "".
void check_bounds(std::string_view text, const std::string& source);

}  // namespace hpcsens::json_input
