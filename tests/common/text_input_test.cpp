// Outside strings (lossless encoding, message escaping), strict JSON input and run ids.
#include <gtest/gtest.h>

#include <string>

#include "common/errors.h"
#include "common/json_input.h"
#include "common/run_id.h"
#include "common/text_escape.h"
#include "common/text_terminal.h"

namespace hpcsens {
namespace {

std::string decoded(const std::string& text) {
  std::string bytes;
  EXPECT_TRUE(text::decode_outside(text, &bytes)) << text;
  return bytes;
}

TEST(EncodeOutside, PlainUtf8IsUnchanged) {
  EXPECT_EQ(text::encode_outside("caf\xc3\xa9 node-01"), "caf\xc3\xa9 node-01");
  EXPECT_EQ(text::encode_outside(""), "");
}

TEST(EncodeOutside, InvalidBytesAndBackslashesAreEscapedReversibly) {
  EXPECT_EQ(text::encode_outside("h\xe9"), "h\\xe9");
  EXPECT_EQ(text::encode_outside("a\\b"), "a\\\\b");
  EXPECT_EQ(text::encode_outside("\\xe9"), "\\\\xe9") << "a literal \\xe9 stays distinguishable";
  EXPECT_EQ(text::encode_outside("\xed\xa0\x80"), "\\xed\\xa0\\x80") << "a surrogate is not UTF-8";
  EXPECT_EQ(text::encode_outside("\xc0\xaf"), "\\xc0\\xaf") << "an overlong form is not UTF-8";
  EXPECT_EQ(text::encode_outside("\xe2\x82"), "\\xe2\\x82") << "a truncated sequence";
}

TEST(EncodeOutside, EveryByteStringRoundTripsAndEncodesToValidUtf8) {
  std::string all;
  for (int i = 0; i < 256; ++i) all += static_cast<char>(i);
  for (const std::string& s : {all, std::string("caf\xe9\\x41\\"), std::string("\xf4\x90\x80\x80")}) {
    const std::string enc = text::encode_outside(s);
    EXPECT_TRUE(text::is_valid_utf8(enc));
    EXPECT_EQ(decoded(enc), s);
  }
}

TEST(DecodeOutside, RefusesWhatEncodeNeverProduces) {
  std::string b;
  EXPECT_FALSE(text::decode_outside("a\\", &b));
  EXPECT_FALSE(text::decode_outside("\\q", &b));
  EXPECT_FALSE(text::decode_outside("\\xg0", &b));
  EXPECT_FALSE(text::decode_outside("\\x4", &b));
}

TEST(EscapeForMessage, ControlCharactersAndInvalidBytesBecomeVisible) {
  EXPECT_EQ(text::escape_for_message("a\nb\r\tc\x1b[31m\x7f"), "a\\nb\\r\\tc\\x1b[31m\\x7f");
  EXPECT_EQ(text::escape_for_message("\xc2\x9b" "x"), "\\xc2\\x9bx") << "C1 CSI";
  EXPECT_EQ(text::escape_for_message("h\xe9 caf\xc3\xa9"), "h\\xe9 caf\xc3\xa9");
  const std::string once = text::escape_for_message("x\ny\\z");
  EXPECT_EQ(text::escape_for_message(once), once) << "escaping twice changes nothing";
}

// Names cut to fit a fixed field (a region name's 63 bytes, a status's 255) end on a character:
// a cut inside "é" or "€" would be invalid UTF-8, and two such cuts would become one key.
TEST(CutAtBoundary, NeverSplitsACharacterOrAnEscape) {
  const std::string a62(62, 'a');
  EXPECT_EQ(hpcsens::text::cut_at_boundary(a62 + "\xc3\xa9x", 63), 62u);  // "é" would be cut
  EXPECT_EQ(hpcsens::text::cut_at_boundary(a62 + "\xe2\x82\xac", 63), 62u);
  EXPECT_EQ(hpcsens::text::cut_at_boundary(a62 + "\xc3\xa9", 64), 64u);
  EXPECT_EQ(hpcsens::text::cut_at_boundary(a62 + "b\\xffc", 64), 63u) << "not inside \\xff";
  EXPECT_EQ(hpcsens::text::cut_at_boundary("short", 63), 5u);
  for (std::size_t max = 0; max < 12; ++max)
    EXPECT_TRUE(hpcsens::text::is_valid_utf8(std::string("\xe2\x82\xac\xe2\x82\xac\xc3\xa9").substr(
        0, hpcsens::text::cut_at_boundary("\xe2\x82\xac\xe2\x82\xac\xc3\xa9", max)))) << max;
}

TEST(EscapeForTerminal, KeepsLinesButNoControlByteReachesTheScreen) {
  EXPECT_EQ(hpcsens::text::escape_for_terminal("a\tb\nsys\x1b[31m\x07\r\xc2\x9b\xff ok \xc3\xa9\n"),
            "a\tb\nsys\\x1b[31m\\x07\\r\\xc2\\x9b\\xff ok \xc3\xa9\n");
}

TEST(InputErrorMessage, IsOneLineWithControlCharactersEscaped) {
  const InputError e("spec\n.yaml:3", "field 'a\x1b]0;owned\x07' is bad");
  EXPECT_STREQ(e.what(), "spec\\n.yaml:3: field 'a\\x1b]0;owned\\x07' is bad");
}

TEST(JsonInput, DuplicateKeysAreRefusedNamingThePath) {
  try {
    json_input::parse_strict(R"({"a": {"b": [1, {"c": 1, "c": 2}]}})", "f.json");
    FAIL() << "duplicate accepted";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "f.json: duplicate key 'c' at a.b[1].c");
  }
  EXPECT_NO_THROW(json_input::parse_strict(R"([{"c": 1}, {"c": 2}])", "f.json")) << "same key, other objects";
}

TEST(JsonInput, NumbersBeyondDoubleRangeNameTheField) {
  try {
    json_input::parse_strict(R"({"ranks": [{"wall_s": 1e400}]})", "r.json");
    FAIL() << "1e400 accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("r.json: field 'ranks[0].wall_s': number out of range"), std::string::npos)
        << e.what();
  }
}

TEST(JsonInput, SyntaxErrorsAreInputErrors) {
  EXPECT_THROW(json_input::parse_strict("{\"a\": ", "f"), InputError);
  EXPECT_THROW(json_input::parse_strict("\"\xff\"", "f"), InputError);
  EXPECT_THROW(json_input::parse_strict("", "f"), InputError);
}

TEST(RunId, RefusesPathsDotsAndControlCharacters) {
  EXPECT_EQ(run_id_problem("20261121T063508Z-1234.2"), "");
  EXPECT_EQ(run_id_problem("p03-r2-a1"), "");
  EXPECT_EQ(run_id_problem("../x"), "starts with '.'");
  EXPECT_EQ(run_id_problem("a/../../etc"), "contains '..'");
  EXPECT_EQ(run_id_problem("a/b"), "contains '/'");
  EXPECT_NE(run_id_problem("a\nb"), "");
  EXPECT_NE(run_id_problem(""), "");
  EXPECT_NE(run_id_problem(std::string(200, 'a')), "");
}

}  // namespace
}  // namespace hpcsens
