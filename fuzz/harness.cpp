// libFuzzer entry point for one parser, chosen at build time (HPCSENS_FUZZ_PARSER). Bad input
// refused with InputError is the expected outcome; anything else escaping the parser aborts, and
// libFuzzer saves the input (scripts/fuzz.sh files it under fuzz/regressions/<parser>/).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "common/errors.h"
#include "fuzz/parser_feeds.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const hpcsens::fuzz::Feed feed = hpcsens::fuzz::find_feed(HPCSENS_FUZZ_PARSER);
  if (feed == nullptr) std::abort();
  try {
    feed(std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const hpcsens::InputError&) {
  }
  return 0;
}
