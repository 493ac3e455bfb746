// Replays every input that once broke a parser (fuzz/regressions/<parser>/<file>) through the
// ordinary build of that parser: each must be accepted or refused with InputError (exit 2 in the
// CLI), never another exception or a crash. The seeds (fuzz/seeds/) are replayed too.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "common/errors.h"
#include "fuzz/parser_feeds.h"

namespace hpcsens::fuzz {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// How many files were replayed for this parser.
int replay(const ParserFeed& parser, const fs::path& root) {
  int n = 0;
  const fs::path dir = root / parser.name;
  if (!fs::is_directory(dir)) return 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (!e.is_regular_file() || e.path().filename() == "README.md") continue;
    ++n;
    try {
      parser.feed(slurp(e.path()));
    } catch (const InputError&) {
    } catch (const std::exception& ex) {
      ADD_FAILURE() << e.path() << ": " << parser.name << " threw something other than InputError: " << ex.what();
    }
  }
  return n;
}

TEST(FuzzRegressions, EveryInputThatOnceBrokeAParserIsAcceptedOrRefusedCleanly) {
  int total = 0;
  for (const auto& p : parser_feeds()) total += replay(p, fs::path(HPCSENS_FUZZ_DIR) / "regressions");
  EXPECT_GT(total, 0) << "no regression inputs found under " << HPCSENS_FUZZ_DIR;
}

TEST(FuzzRegressions, EverySeedIsAcceptedOrRefusedCleanly) {
  for (const auto& p : parser_feeds())
    EXPECT_GT(replay(p, fs::path(HPCSENS_FUZZ_DIR) / "seeds"), 0) << "no seeds for " << p.name;
}

}  // namespace
}  // namespace hpcsens::fuzz
