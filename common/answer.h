#pragma once
// The one layout of an answer (headline, caveats, advice with the figure behind each item) and the
// caveat sentences more than one kind of answer says. A run, a model or sweep, a prediction and a
// mix each build their own answer (report/headline.h, report/model_view.h, model/predict_answer.h,
// model/mix.h); all of them are laid out here, so "Caveat:", "because:" and the verdict and
// extrapolation sentences read the same in text, Markdown, JSON and on the page, whichever
// command printed them (docs/user-guide.md, "The answer first").
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hpcsens::answer {

struct Advice {
  std::string text;    // what to do
  std::string figure;  // the measured number behind it ("" where the text already names it)
};

struct Answer {
  std::string headline;
  std::string tone = "info";         // ok | caution | bad | info: the page colours the answer by it
  std::vector<std::string> caveats;  // what limits the headline, each said once
  std::vector<Advice> advice;
};

// Text answers fit a terminal this wide (the width of the report's text tables).
inline constexpr std::size_t kTextWidth = 120;

// "Answer: headline", "  Caveat: c" lines, "  - advice" lines each with "    because: figure",
// wrapped at kTextWidth (continuations indented under their item; no word is cut), then a blank
// line.
std::string text(const Answer& a);
// "### Answer", the headline, one quote block of "> Caveat: c" lines, "What to try:" and
// "- advice (because: figure)" items.
std::string markdown(const Answer& a);
// {headline, tone, caveats[], advice[{text, figure}]}.
nlohmann::json to_json(const Answer& a);
// One advice item on one line, as the page and Markdown show it: "text (because: figure)".
std::string advice_line(const Advice& x);
// One caveat as every layout shows it: "Caveat: c".
std::string caveat_line(const std::string& c);

// --- Sentences shared by the answers (common/answer_words.cpp) ---

// "a", "a and b", "a, b and c".
std::string list_words(const std::vector<std::string>& words);
// The model's verdict as a caveat: "The model's verdict is unreliable: a and b." (or "... is
// caution." without reasons). The same sentence in a prediction, a mix and a model's own answer.
std::string model_verdict_caveat(const std::string& verdict, const std::vector<std::string>& reasons);
// A sentence said of one part of the input: "Application 'qe': The model's verdict is ...".
std::string about(const std::string& subject, const std::string& sentence);
// "extrapolated (mem_gbs 480 GB/s is 4.00x beyond the measured 60 to 120 GB/s)".
std::string extrapolated_clause(const std::vector<std::string>& facts);
// "hbm: verdict unreliable, extrapolated (...)." for one projection.
std::string extrapolated_caveat(const std::string& who, const std::string& verdict, const std::vector<std::string>& facts);
// "The ranking rests on extrapolated predictions (hbm and big-mem)."
std::string ranking_extrapolated_caveat(const std::vector<std::string>& who);
// "EMULATED: the model was fitted to emulated runs, not measurements." (`subject`: "the model").
std::string emulated_caveat(const std::string& subject);

}  // namespace hpcsens::answer
