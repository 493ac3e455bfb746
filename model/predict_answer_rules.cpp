// The pieces the prediction and mix answers share: tones, extrapolation in words and the advice
// that fixes it. Their layout (text, Markdown, JSON) is every answer's: common/answer.h.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "model/predict_answer.h"

namespace hpcsens::model {
namespace answer_rules {

std::string tone_of(const std::string& verdict) {
  return verdict == "ok" ? "ok" : verdict == "unreliable" ? "bad" : "caution";
}

std::string worse(const std::string& a, const std::string& b) {
  auto rank = [](const std::string& t) { return t == "bad" ? 3 : t == "caution" ? 2 : t == "ok" ? 1 : 0; };
  return rank(a) >= rank(b) ? a : b;
}

std::string rate_text(double v, const std::string& unit) {
  return std::isfinite(v) ? fmt::format("{:.4g} {}", v, unit) : std::string("-");
}

namespace {

std::string fact(const PredictedRate& r) {
  return fmt::format("{} {} is {:.2f}x beyond the measured {:.4g} to {}", r.name, rate_text(r.value, r.unit), r.beyond,
                     r.measured_lo, rate_text(r.measured_hi, r.unit));
}

}  // namespace

std::vector<std::string> extrapolation_facts(const Prediction& p) {
  std::vector<std::string> out;
  for (const auto& r : p.rates)
    if (r.beyond > 1) out.push_back(fact(r));
  return out;
}

std::vector<AdviceItem> extrapolation_advice(const std::vector<std::pair<std::string, const Prediction*>>& who,
                                             const std::string& subject) {
  struct Group {
    std::vector<std::string> labels, figures;
    const PredictedRate* farthest = nullptr;
  };
  std::vector<std::pair<std::string, Group>> groups;  // key: rate name + direction, first seen first
  for (const auto& [label, p] : who)
    for (const auto& r : p->rates) {
      if (r.beyond <= 1) continue;
      const std::string key = r.name + (r.value > r.measured_hi ? "+" : "-");
      auto at = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == key; });
      if (at == groups.end()) groups.push_back({key, {}}), at = groups.end() - 1;
      Group& g = at->second;
      if (std::find(g.labels.begin(), g.labels.end(), label) == g.labels.end()) g.labels.push_back(label);
      g.figures.push_back(label + ": " + fact(r));
      if (!g.farthest || r.beyond > g.farthest->beyond) g.farthest = &r;
    }
  std::vector<AdviceItem> out;
  for (const auto& [key, g] : groups) {
    const PredictedRate& r = *g.farthest;
    const bool up = key.back() == '+';
    const double reach = up ? r.value / kExtrapolationFactor : r.value * kExtrapolationFactor;
    const std::string who_text = subject.empty() ? "" : subject + " ";
    std::string text = fmt::format(
        "Measure {}nearer {}'s {}: add sweep points with {} {} toward {} (the sweep {} {}); once a measured point "
        "is at or {} {} the projection is no longer extrapolated. Where this machine cannot reach that rate, "
        "measure on a system that does.",
        who_text, list_words(g.labels), r.name, r.name, up ? "up" : "down", rate_text(r.value, r.unit),
        up ? "reached" : "went down to", rate_text(up ? r.measured_hi : r.measured_lo, r.unit), up ? "above" : "below",
        rate_text(reach, r.unit));
    std::string figure;
    for (const auto& f : g.figures) figure += (figure.empty() ? "" : "; ") + f;
    out.push_back({std::move(text), std::move(figure)});
  }
  return out;
}

}  // namespace answer_rules

}  // namespace hpcsens::model
