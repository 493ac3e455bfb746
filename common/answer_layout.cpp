// The one layout of every answer (common/answer.h): text for the terminal, Markdown, JSON, and
// the one-line forms the page uses. Words are never cut: a path in an advice item stays whole
// even where it overruns the width.
#include <fmt/core.h>

#include "common/answer.h"

namespace hpcsens::answer {
namespace {

constexpr const char* kBecause = "because: ";

std::vector<std::string> answer_words_of(const std::string& s) {
  std::vector<std::string> words;
  std::size_t start = 0;
  for (std::size_t end; (end = s.find(' ', start)) != std::string::npos; start = end + 1)
    if (end > start) words.push_back(s.substr(start, end - start));
  if (start < s.size()) words.push_back(s.substr(start));
  return words;
}

// `lead` + `body` packed into lines of at most kTextWidth; continuation lines start with `indent`.
std::string answer_wrapped(const std::string& lead, const std::string& body, const std::string& indent) {
  std::string out = lead, line = lead;
  bool first = true;
  for (const auto& w : answer_words_of(body)) {
    if (!first && line.size() + 1 + w.size() > kTextWidth) {
      out += "\n" + indent;
      line = indent;
      first = true;
    }
    out += (first ? "" : " ") + w;
    line += (first ? "" : " ") + w;
    first = false;
  }
  return out + "\n";
}

}  // namespace

std::string caveat_line(const std::string& c) { return "Caveat: " + c; }

std::string advice_line(const Advice& x) {
  return x.figure.empty() ? x.text : fmt::format("{} ({}{})", x.text, kBecause, x.figure);
}

std::string text(const Answer& a) {
  std::string out = answer_wrapped("Answer: ", a.headline, "");
  for (const auto& c : a.caveats) out += answer_wrapped("  " + caveat_line(""), c, "    ");
  for (const auto& x : a.advice) {
    out += answer_wrapped("  - ", x.text, "    ");
    if (!x.figure.empty()) out += answer_wrapped(std::string("    ") + kBecause, x.figure, "      ");
  }
  return out + "\n";
}

std::string markdown(const Answer& a) {
  std::string out = "### Answer\n\n" + a.headline + "\n\n";
  for (std::size_t i = 0; i < a.caveats.size(); ++i)  // one quote block, a blank quoted line between caveats
    out += (i ? ">\n" : "") + std::string("> ") + caveat_line(a.caveats[i]) + "\n";
  if (!a.caveats.empty()) out += "\n";
  if (!a.advice.empty()) out += "What to try:\n\n";
  for (const auto& x : a.advice) out += "- " + advice_line(x) + "\n";
  return out + (a.advice.empty() ? "" : "\n");
}

nlohmann::json to_json(const Answer& a) {
  nlohmann::json advice = nlohmann::json::array();
  for (const auto& x : a.advice) advice.push_back({{"text", x.text}, {"figure", x.figure}});
  return {{"headline", a.headline}, {"tone", a.tone}, {"caveats", a.caveats}, {"advice", advice}};
}

}  // namespace hpcsens::answer
