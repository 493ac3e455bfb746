// The answer of `hpcsens predict`: which candidate is fastest and how far to trust that, from the
// model's verdict, the winner's own verdict and extrapolation, and whether the ranking holds.
#include "model/predict_answer.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "common/human_units.h"
#include "model/predict_rates.h"

namespace hpcsens::model {
namespace {

using namespace answer_rules;

// "Baseline 'b3': 45.6 s modelled (45.2 s measured) at 3 GHz, 120 GB/s." (the rates the model uses).
std::string baseline_text(const ModelReport& m) {
  const Point& b = m.points[m.baseline];
  std::string rates;
  for (const auto& r : user_rates())
    if (model_uses(m.spec, r.rate)) rates += (rates.empty() ? "" : ", ") + rate_text(user_value(r, b), r.unit);
  return fmt::format(" Speed-ups are against the baseline '{}': {} modelled ({} measured){}.", b.label,
                     human::seconds(model_time(m.spec, m.params, b)), human::seconds(b.time_s),
                     rates.empty() ? "" : " at " + rates);
}

std::string projection(const Prediction& p) {
  return fmt::format("{}, {:.2f}x", human::seconds(p.predicted_s), p.speedup);
}

// Why a prediction is below `ok`, in a clause: its extrapolated rates, else the model's verdict.
std::string weakness(const ModelReport& m, const Prediction& p) {
  const auto facts = extrapolation_facts(p);
  if (!facts.empty()) return "it is " + answer::extrapolated_clause(facts);
  if (!p.doubts.empty()) return p.doubts.front();
  return "the model's verdict is " + m.verdict.word +
         (m.verdict.reasons.empty() ? std::string() : " (" + m.verdict.reasons.front() + ")");
}

std::string headline(const ModelReport& m, const std::vector<Prediction>& ranked) {
  const Prediction& best = ranked.front();
  const std::string app = m.app.empty() ? "The application" : m.app;
  const bool one = ranked.size() == 1;
  std::string h = fmt::format("{} {} {} on {} ({:.2f}x the baseline)", app,
                              one ? "is projected to take" : best.verdict == "ok" ? "runs fastest, in" : "is projected to run fastest, in",
                              human::seconds(best.predicted_s), best.system.name, best.speedup);
  if (best.verdict != "ok")
    h += fmt::format(", but that projection is {}: {}", best.verdict == "unreliable" ? "unreliable" : "to be read with caution",
                     weakness(m, best));
  h += ".";
  // The fastest candidate whose projection stands on firmer ground, when the winner's does not.
  if (!one && best.verdict != "ok")
    for (const auto& p : ranked)
      if (p.verdict == "ok" || (p.verdict == "caution" && best.verdict == "unreliable" && p.extrapolated.empty())) {
        h += fmt::format(" Of the projections {}, {} is fastest ({}).",
                         p.extrapolated.empty() ? "inside the measured rates" : "judged " + p.verdict,
                         p.system.name, projection(p));
        break;
      }
  const auto overlaps = ranking_overlaps(ranked);
  if (!one)
    h += overlaps.empty() ? " The ranking holds across the fit intervals."
                          : " The ranking does not hold across the fit intervals (" + list_words(overlaps) + ").";
  return h + baseline_text(m);
}

// Rates left out (the model does not use them) and rates given that the model cannot use: each
// said once for all the candidates it applies to.
void rate_caveats(const ModelReport& m, const std::vector<Prediction>& ranked, std::vector<std::string>& out) {
  std::map<std::string, std::vector<std::string>> unused;  // rate -> candidates giving a changed value
  for (const auto& p : ranked)
    for (const auto& r : p.rates) {
      if (r.modelled || !r.given) continue;
      const auto u = std::find_if(user_rates().begin(), user_rates().end(), [&](const UserRate& x) { return r.name == x.name; });
      const double base = user_value(*u, m.points[m.baseline]);
      if (!std::isfinite(base) || std::fabs(r.value - base) > 0.01 * base) unused[r.name].push_back(p.system.name);
    }
  if (!unused.empty()) {
    std::vector<std::string> rates, who;
    for (const auto& [rate, names] : unused) {
      rates.push_back(rate);
      for (const auto& n : names)
        if (std::find(who.begin(), who.end(), n) == who.end()) who.push_back(n);
    }
    out.push_back(fmt::format("Model '{}' has no term for {}: the values given for {} change nothing in their "
                              "projections.",
                              m.spec.name(), list_words(rates), list_words(who)));
  }
}

void caveats(const ModelReport& m, const std::vector<Prediction>& ranked, Answer& a) {
  if (m.emulated) a.caveats.push_back(answer::emulated_caveat("the model"));
  if (m.verdict.word != "ok") a.caveats.push_back(answer::model_verdict_caveat(m.verdict.word, m.verdict.reasons));
  std::vector<std::string> extrapolated;
  for (const auto& p : ranked) {
    if (!p.extrapolated.empty()) extrapolated.push_back(p.system.name);
    if (p.verdict != m.verdict.word && !p.extrapolated.empty())
      a.caveats.push_back(answer::extrapolated_caveat(p.system.name, p.verdict, extrapolation_facts(p)));
    if (!p.doubts.empty())
      a.caveats.push_back(fmt::format("{}: verdict {}: {}.", p.system.name, p.verdict, list_words(p.doubts)));
  }
  if (ranked.size() > 1 && !extrapolated.empty())
    a.caveats.push_back(answer::ranking_extrapolated_caveat(extrapolated));
  rate_caveats(m, ranked, a.caveats);
  for (const auto& p : ranked)
    for (const auto& w : p.warnings)
      if (w.find("extrapolating") == std::string::npos && w.rfind("EMULATED", 0) != 0 && w.rfind("UNRELIABLE", 0) != 0)
        a.caveats.push_back(p.system.name + ": " + w + ".");
}

void advice(const ModelReport& m, const std::vector<Prediction>& ranked, const std::string& model_path, Answer& a) {
  std::vector<std::pair<std::string, const Prediction*>> who;
  for (const auto& p : ranked) who.push_back({p.system.name, &p});
  a.advice = extrapolation_advice(who, "");
  const std::string report = "hpcsens report " + (model_path.empty() ? std::string("the model file") : model_path);
  const std::string reason = m.verdict.reasons.empty() ? "verdict " + m.verdict.word : m.verdict.reasons.front();
  if (m.verdict.word == "unreliable")
    a.advice.push_back({"Sweep again before buying on this model; " + report + " says what to change.",
                        "the model's verdict is unreliable: " + reason});
  else if (m.verdict.word == "caution")
    a.advice.push_back({"Read what limits the model (" + report + ") before relying on close calls.",
                        "the model's verdict is caution: " + reason});
  // Overlapping neighbours that are both inside the measured rates: only their noise separates them.
  for (std::size_t i = 0; i + 1 < ranked.size(); ++i) {
    const Prediction &x = ranked[i], &y = ranked[i + 1];
    if (x.fit_high_s < y.fit_low_s || !x.extrapolated.empty() || !y.extrapolated.empty()) continue;
    a.advice.push_back({fmt::format("Separate {} and {} with more repetitions per sweep point (narrower fit "
                                    "intervals).", x.system.name, y.system.name),
                        fmt::format("fit intervals {}: {:.4g} to {:.4g} s, {}: {:.4g} to {:.4g} s overlap",
                                    x.system.name, x.fit_low_s, x.fit_high_s, y.system.name, y.fit_low_s,
                                    y.fit_high_s)});
  }
}

}  // namespace

Answer prediction_answer(const ModelReport& m, const std::vector<Prediction>& ranked, const std::string& model_path) {
  Answer a;
  if (ranked.empty()) {
    a.headline = "No candidate system was projected.";
    return a;
  }
  a.headline = headline(m, ranked);
  a.tone = worse(tone_of(m.verdict.word), tone_of(ranked.front().verdict));
  bool any_extrapolated = false;
  for (const auto& p : ranked) any_extrapolated = any_extrapolated || !p.extrapolated.empty();
  if (ranked.size() > 1 && (any_extrapolated || !ranking_overlaps(ranked).empty())) a.tone = worse(a.tone, "caution");
  caveats(m, ranked, a);
  advice(m, ranked, model_path, a);
  return a;
}

}  // namespace hpcsens::model
