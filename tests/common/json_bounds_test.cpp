// Bounds on untrusted JSON (common/json_bounds.h): depth, string and number length, each refused
// with the field it was found in, before a parser or a recursive walker sees the text.
#include "common/json_bounds.h"

#include <gtest/gtest.h>

#include <string>

#include "common/errors.h"
#include "common/json_input.h"

namespace hpcsens::json_input {
namespace {

std::string nested(std::size_t depth, const std::string& inner = "1") {
  return std::string(depth, '[') + inner + std::string(depth, ']');
}

TEST(JsonBounds, NestingAtTheLimitIsReadAndOneMoreIsRefusedNamingTheField) {
  EXPECT_EQ(bounds_problem(nested(kMaxDepth)), "");
  EXPECT_NO_THROW(parse_strict(nested(kMaxDepth), "r.json"));
  const std::string deep = "{\"schema\": \"x\", \"junk\": " + nested(20000) + "}";
  const std::string p = bounds_problem(deep);
  EXPECT_NE(p.find("field 'junk[0][0][0][0][0][0][0]... (248 more levels)'"), std::string::npos) << p;
  EXPECT_NE(p.find("nested more than 256 levels deep"), std::string::npos) << p;
  try {
    parse_strict(deep, "r.json");
    FAIL() << "20,000 levels were parsed";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("r.json: field 'junk", 0), 0u) << e.what();
  }
}

TEST(JsonBounds, LongStringsKeysAndNumbersAreRefusedNamingTheField) {
  const std::string big(kMaxStringBytes + 1, 'a');
  EXPECT_EQ(bounds_problem("{\"job\": {\"command\": [\"" + std::string(kMaxStringBytes, 'a') + "\"]}}"), "");
  std::string p = bounds_problem("{\"job\": {\"command\": [\"x\", \"" + big + "\"]}}");
  EXPECT_NE(p.find("field 'job.command[1]': a string of 1048577 bytes"), std::string::npos) << p;
  p = bounds_problem("{\"job\": {\"" + big + "\": 1}}");
  EXPECT_NE(p.find("field 'job': a key of 1048577 bytes"), std::string::npos) << p;
  p = bounds_problem("{\"timing\": {\"job_s\": 1." + std::string(200, '0') + "}}");
  EXPECT_NE(p.find("field 'timing.job_s': a number of 202 characters"), std::string::npos) << p;
  EXPECT_EQ(bounds_problem("{\"x\": -1.2345678901234567e-308, \"y\": 18446744073709551615}"), "");
}

TEST(JsonBounds, EscapedQuotesAndBracketsInStringsAreNotStructure) {
  // 300 brackets inside a string, and quotes escaped inside it, nest nothing.
  EXPECT_EQ(bounds_problem("{\"a\\\"[\": \"" + std::string(300, '[') + "\\\\\", \"b\": [1]}"), "");
  // Bad syntax is the parser's to report: the scan neither crashes nor claims it.
  EXPECT_EQ(bounds_problem("{\"a\": \"unterminated"), "");
  EXPECT_EQ(bounds_problem("]]]]}}"), "");
}

}  // namespace
}  // namespace hpcsens::json_input
