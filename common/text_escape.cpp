#include "common/text_escape.h"

#include <cstdint>

#include "common/text_terminal.h"

namespace hpcsens::text {

std::size_t utf8_sequence_length(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<std::uint8_t>(s[k]); };
  const std::uint8_t c = b(i);
  if (c < 0x80) return 1;
  std::size_t n;
  std::uint8_t lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;  // no overlong forms
    if (c == 0xED) hi = 0x9F;  // no surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;  // at most U+10FFFF
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  if (b(i + 1) < lo || b(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if (b(i + k) < 0x80 || b(i + k) > 0xBF) return 0;
  return n;
}

namespace {

constexpr char kHex[] = "0123456789abcdef";

void append_hex_escape(std::string& out, unsigned char c) {
  out += "\\x";
  out += kHex[c >> 4];
  out += kHex[c & 0xF];
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

bool is_valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8_sequence_length(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string encode_outside(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (std::size_t i = 0; i < bytes.size();) {
    const std::size_t n = utf8_sequence_length(bytes, i);
    if (n == 0) {
      append_hex_escape(out, static_cast<unsigned char>(bytes[i]));
      ++i;
    } else if (bytes[i] == '\\') {
      out += "\\\\";
      ++i;
    } else {
      out.append(bytes.substr(i, n));
      i += n;
    }
  }
  return out;
}

bool decode_outside(std::string_view text, std::string* bytes) {
  bytes->clear();
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') {
      *bytes += text[i];
      continue;
    }
    if (i + 1 < text.size() && text[i + 1] == '\\') {
      *bytes += '\\';
      ++i;
      continue;
    }
    if (i + 3 >= text.size() || text[i + 1] != 'x') return false;
    const int hi = hex_value(text[i + 2]), lo = hex_value(text[i + 3]);
    if (hi < 0 || lo < 0) return false;
    *bytes += static_cast<char>(hi * 16 + lo);
    i += 3;
  }
  return true;
}

std::size_t cut_at_boundary(std::string_view s, std::size_t max) {
  if (s.size() <= max) return s.size();
  std::size_t i = 0;
  while (i < s.size()) {
    std::size_t unit = utf8_sequence_length(s, i);
    if (s[i] == '\\' && i + 1 < s.size() && s[i + 1] == '\\') unit = 2;
    else if (s[i] == '\\' && i + 3 < s.size() && s[i + 1] == 'x' && hex_value(s[i + 2]) >= 0 && hex_value(s[i + 3]) >= 0)
      unit = 4;
    if (unit == 0) unit = 1;
    if (i + unit > max) break;
    i += unit;
  }
  return i;
}

namespace {

// Shared by the two escapings below: `keep_lines` leaves '\n' and '\t' as they are (several lines
// of a table), else they are shown as \n and \t (one message line).
std::string escape_controls(std::string_view s, bool keep_lines) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8_sequence_length(s, i);
    const auto c = static_cast<unsigned char>(s[i]);
    // C1 controls are U+0080..U+009F, encoded as C2 80..C2 9F.
    const bool c1 = n == 2 && c == 0xC2 && static_cast<unsigned char>(s[i + 1]) < 0xA0;
    if (n == 0 || c1) {
      for (std::size_t k = 0; k < (c1 ? 2u : 1u); ++k) append_hex_escape(out, static_cast<unsigned char>(s[i + k]));
      i += c1 ? 2 : 1;
    } else if (keep_lines && (c == '\n' || c == '\t')) {
      out += static_cast<char>(c), ++i;
    } else if (c == '\n') {
      out += "\\n", ++i;
    } else if (c == '\r') {
      out += "\\r", ++i;
    } else if (c == '\t') {
      out += "\\t", ++i;
    } else if (c < 0x20 || c == 0x7F) {
      append_hex_escape(out, c), ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

}  // namespace

std::string escape_for_message(std::string_view s) { return escape_controls(s, false); }

std::string escape_for_terminal(std::string_view s) { return escape_controls(s, true); }

}  // namespace hpcsens::text
