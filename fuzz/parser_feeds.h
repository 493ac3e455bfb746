#pragma once
// Every parser of outside input, as one "feed" function per parser: the libFuzzer harnesses
// (fuzz/harness.cpp, built with clang) and the regression test that replays
// fuzz/regressions/<parser>/ (tests/fuzz, built with the ordinary compiler) call the same code.
// A feed may throw hpcsens::InputError (bad input, correctly refused); anything else escaping it
// (another exception, a crash, a sanitizer report) is a bug.
#include <string>
#include <string_view>
#include <vector>

namespace hpcsens::fuzz {

using Feed = void (*)(std::string_view input);

struct ParserFeed {
  const char* name;  // directory name under fuzz/regressions and fuzz/seeds
  Feed feed;
};

// All parsers, in a fixed order.
const std::vector<ParserFeed>& parser_feeds();
// The feed named `name`, or nullptr.
Feed find_feed(std::string_view name);

}  // namespace hpcsens::fuzz
