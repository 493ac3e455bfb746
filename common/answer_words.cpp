// The caveat sentences more than one answer says (common/answer.h): a model's verdict, an
// extrapolated projection, a ranking resting on extrapolation, emulated data. One wording, so a
// prediction, a mix and the model's own answer say the same thing about the same fact.
#include "common/answer.h"

namespace hpcsens::answer {

std::string list_words(const std::vector<std::string>& w) {
  std::string o;
  for (std::size_t i = 0; i < w.size(); ++i) o += (i == 0 ? "" : i + 1 == w.size() ? " and " : ", ") + w[i];
  return o;
}

std::string model_verdict_caveat(const std::string& verdict, const std::vector<std::string>& reasons) {
  return "The model's verdict is " + verdict + (reasons.empty() ? "." : ": " + list_words(reasons) + ".");
}

std::string about(const std::string& subject, const std::string& sentence) { return subject + ": " + sentence; }

std::string extrapolated_clause(const std::vector<std::string>& facts) {
  return "extrapolated (" + list_words(facts) + ")";
}

std::string extrapolated_caveat(const std::string& who, const std::string& verdict, const std::vector<std::string>& facts) {
  return about(who, "verdict " + verdict + ", " + extrapolated_clause(facts) + ".");
}

std::string ranking_extrapolated_caveat(const std::vector<std::string>& who) {
  return "The ranking rests on extrapolated predictions (" + list_words(who) + ").";
}

std::string emulated_caveat(const std::string& subject) {
  return "EMULATED: " + subject + " was fitted to emulated runs, not measurements.";
}

}  // namespace hpcsens::answer
