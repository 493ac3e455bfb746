#include "common/json_bounds.h"

#include <cstring>
#include <vector>

#include "common/errors.h"

namespace hpcsens::json_input {
namespace {

// One open object or array: the key or element being read, for messages.
struct NestFrame {
  bool object = false;
  bool expect_key = false;  // object: the next string is a key
  std::string_view key;
  std::size_t index = 0;
};

// "ranks[0].calls"; past 8 levels only how many more (a path 256 levels deep helps nobody).
std::string nest_path_of(const std::vector<NestFrame>& frames) {
  std::string p;
  constexpr std::size_t kShown = 8;
  for (std::size_t i = 0; i < frames.size() && i < kShown; ++i) {
    const NestFrame& f = frames[i];
    if (f.object && f.key.empty() && i + 1 == frames.size()) break;
    if (f.object) {
      const std::string_view k = f.key.substr(0, 64);
      p += (p.empty() ? "" : ".") + std::string(k) + (k.size() < f.key.size() ? "..." : "");
    } else {
      p += "[" + std::to_string(f.index) + "]";
    }
  }
  if (frames.size() > kShown) p += "... (" + std::to_string(frames.size() - kShown) + " more levels)";
  return p.empty() ? "(top level)" : p;
}

std::string problem(const std::vector<NestFrame>& frames, const std::string& what, std::size_t at, const std::string& limit) {
  return "field '" + nest_path_of(frames) + "': " + what + " (byte " + std::to_string(at) + "); " + limit;
}

bool number_char(char c) { return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'; }

// Index of the quote closing the string whose first character is at `start`, or text.size().
std::size_t string_end(std::string_view text, std::size_t start) {
  const char* p = text.data();
  for (std::size_t j = start; j < text.size();) {
    const void* q = std::memchr(p + j, '"', text.size() - j);
    if (q == nullptr) break;
    const std::size_t k = static_cast<std::size_t>(static_cast<const char*>(q) - p);
    std::size_t backslashes = 0;
    while (k - backslashes > start && p[k - backslashes - 1] == '\\') ++backslashes;
    if (backslashes % 2 == 0) return k;
    j = k + 1;
  }
  return text.size();
}

}  // namespace

std::string bounds_problem(std::string_view text) {
  std::vector<NestFrame> frames;
  frames.reserve(kMaxDepth);
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n;) {
    const char c = text[i];
    if (c == '{' || c == '[') {
      if (frames.size() >= kMaxDepth)
        return problem(frames, "arrays and objects nested more than " + std::to_string(kMaxDepth) + " levels deep", i,
                       "hpcsens reads at most " + std::to_string(kMaxDepth) + " levels");
      frames.push_back(NestFrame{c == '{', c == '{', {}, 0});
      ++i;
    } else if (c == '}' || c == ']') {
      if (!frames.empty()) frames.pop_back();
      ++i;
    } else if (c == ',') {
      if (!frames.empty() && frames.back().object) frames.back().expect_key = true;
      else if (!frames.empty()) ++frames.back().index;
      ++i;
    } else if (c == '"') {
      const std::size_t end = string_end(text, i + 1);
      const bool key = !frames.empty() && frames.back().object && frames.back().expect_key;
      if (end - i - 1 > kMaxStringBytes)
        return problem(frames, std::string("a ") + (key ? "key" : "string") + " of " + std::to_string(end - i - 1) + " bytes",
                       i, "hpcsens reads strings of at most " + std::to_string(kMaxStringBytes) + " bytes");
      if (key) {
        frames.back().key = text.substr(i + 1, end - i - 1);
        frames.back().expect_key = false;
      }
      i = end + 1;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      std::size_t end = i;
      while (end < n && number_char(text[end])) ++end;
      if (end - i > kMaxNumberChars)
        return problem(frames, "a number of " + std::to_string(end - i) + " characters", i,
                       "hpcsens reads numbers of at most " + std::to_string(kMaxNumberChars) + " characters");
      i = end;
    } else {
      ++i;
    }
  }
  return "";
}

void check_bounds(std::string_view text, const std::string& source) {
  if (std::string problem = bounds_problem(text); !problem.empty()) throw InputError(source, problem);
}

}  // namespace hpcsens::json_input
