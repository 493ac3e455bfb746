// The answer of a workload mix: the winner under the ranking criterion, never more confident than
// the weakest projection it rests on (an application extrapolated or judged unreliable on the
// winner), with the caveats the text used to scatter and advice tied to its figure.
#include <fmt/core.h>

#include <algorithm>

#include "common/human_units.h"
#include "model/mix.h"

namespace hpcsens::model {
namespace {

using namespace answer_rules;

std::string criterion_value(const MixResult& r, const MixSystem& s) {
  switch (r.rank_by) {
    case RankBy::speedup: return fmt::format("{:.2f}x the baseline", s.speedup);
    case RankBy::throughput: return fmt::format("{:.2f}x the baseline's throughput", s.throughput.value_or(NAN));
    case RankBy::per_price: return human::per_money(s.per_price.value_or(NAN)) + " per price";
    case RankBy::per_watt:
      return human::per_money(s.per_watt.value_or(NAN)) + " per watt, " + power_basis_name(r.power_basis) +
             (s.energy_ratio ? fmt::format(", {:.2f}x the baseline's energy for the same work", *s.energy_ratio) : "");
  }
  return "";
}

// "qe is extrapolated (mem_gbs 480 GB/s is 4.00x beyond ...)" for each application below ok.
std::vector<std::string> weak_apps(const MixSystem& s, std::string& worst) {
  std::vector<std::string> out;
  worst = "ok";
  for (const auto& a : s.apps) {
    if (a.verdict == "ok") continue;
    if (tone_of(a.verdict) == "bad" || worst == "ok") worst = a.verdict;
    const auto facts = extrapolation_facts(a.pred);
    if (!facts.empty()) out.push_back(a.name + " is " + answer::extrapolated_clause(facts));
    else if (!a.pred.doubts.empty())
      out.push_back(fmt::format("{}'s projection is {} ({})", a.name, a.verdict, a.pred.doubts.front()));
    else out.push_back(fmt::format("{}'s model is {}", a.name, a.verdict));
  }
  return out;
}

std::string headline(const MixResult& r, std::string& tone) {
  const MixSystem& best = r.systems.front();
  std::string h = fmt::format("Ranked by {}, {} wins ({})", rank_by_name(r.rank_by), best.system.name,
                              criterion_value(r, best));
  std::string worst;
  const auto weak = weak_apps(best, worst);
  tone = tone_of(worst);
  if (!weak.empty())
    h += fmt::format(", but that rests on {}: {}",
                     worst == "unreliable" ? "unreliable projections" : "projections to be read with caution",
                     list_words(weak));
  h += r.systems.size() < 2 ? "." : r.overlaps.empty() ? "; the ranking holds across the intervals."
                                                       : "; the ranking does not hold across the intervals.";
  std::vector<std::string> others;
  for (const auto& [by, name] : r.winners)
    if (by != r.rank_by && name != best.system.name) others.push_back(name + " wins on " + rank_by_name(by));
  if (!others.empty()) h += " The winner changes with the criterion: " + list_words(others) + ".";
  return h;
}

void caveats(const MixResult& r, Answer& a) {
  if (r.emulated) a.caveats.push_back(answer::emulated_caveat("at least one model"));
  for (const auto& app : r.mix->apps)
    if (app.model.verdict.word != "ok")
      a.caveats.push_back(answer::about("Application '" + app.name + "'",
                                        answer::model_verdict_caveat(app.model.verdict.word, app.model.verdict.reasons)));
  // Each projection its extrapolation judged below its model's verdict, in predict's words.
  for (const auto& app : r.mix->apps)
    for (const auto& s : r.systems)
      for (const auto& x : s.apps)
        if (x.name == app.name && !x.pred.extrapolated.empty() && x.pred.verdict != app.model.verdict.word)
          a.caveats.push_back(answer::extrapolated_caveat(s.system.name + "/" + x.name, x.pred.verdict,
                                                          extrapolation_facts(x.pred)));
  const auto pairs = extrapolated_pairs(r);
  if (!pairs.empty()) a.caveats.push_back(answer::ranking_extrapolated_caveat(pairs));
  if (!r.overlaps.empty())
    a.caveats.push_back("The ranking does not hold across the intervals between " + list_words(r.overlaps) + ".");
  if (r.rank_by == RankBy::per_watt && r.power_basis == PowerBasis::nominal)
    a.caveats.push_back("Per watt rests on the SYSTEMS file's nominal power_w, not on measured power: " + r.power_note + ".");
  if (r.mix->weights_normalised) a.caveats.push_back("The weights did not sum to 1 and were normalised.");
  for (const auto& w : r.mix->warnings) a.caveats.push_back(w + ".");
  for (const auto& g : r.warnings) {
    if (g.text.find("extrapolating") != std::string::npos || g.text.rfind("EMULATED", 0) == 0 ||
        g.text.find("UNRELIABLE") != std::string::npos)
      continue;  // said above, once
    std::string where = g.applications.empty() ? "" : "applications " + list_words(g.applications);
    if (r.systems.size() > 1)
      where += (where.empty() ? "" : "; ") + (g.systems.size() == r.systems.size() ? std::string("every system")
                                                                                   : "systems " + list_words(g.systems));
    a.caveats.push_back(g.text + (where.empty() ? "" : " [" + where + "]") + ".");
  }
}

bool any_extrapolated(const MixSystem& s) {
  return std::any_of(s.apps.begin(), s.apps.end(), [](const MixAppResult& a) { return !a.pred.extrapolated.empty(); });
}

void advice(const MixResult& r, Answer& a) {
  for (std::size_t k = 0; k < r.mix->apps.size(); ++k) {
    const MixApp& app = r.mix->apps[k];
    std::vector<std::pair<std::string, const Prediction*>> who;
    for (const auto& s : r.systems)
      for (const auto& x : s.apps)
        if (x.name == app.name) who.push_back({s.system.name, &x.pred});
    for (auto& item : extrapolation_advice(who, "application '" + app.name + "'")) a.advice.push_back(std::move(item));
    if (app.model.verdict.word == "unreliable")
      a.advice.push_back({"Sweep application '" + app.name + "' again before buying on this ranking; hpcsens report " +
                              app.model_path + " says what to change.",
                          "its model's verdict is unreliable" + (app.model.verdict.reasons.empty()
                                                                     ? std::string()
                                                                     : ": " + app.model.verdict.reasons.front())});
  }
  for (std::size_t i = 0; i + 1 < r.systems.size(); ++i) {
    const MixSystem &x = r.systems[i], &y = r.systems[i + 1];
    const std::string pair = x.system.name + " and " + y.system.name;
    if (std::find(r.overlaps.begin(), r.overlaps.end(), pair) == r.overlaps.end()) continue;
    if (any_extrapolated(x) || any_extrapolated(y)) continue;  // the extrapolation advice comes first
    a.advice.push_back({"Separate " + pair + " with more repetitions per sweep point (narrower intervals).",
                        fmt::format("speed-up intervals {}: {:.3f} to {:.3f}, {}: {:.3f} to {:.3f} overlap",
                                    x.system.name, x.speedup_low, x.speedup_high, y.system.name, y.speedup_low,
                                    y.speedup_high)});
  }
  std::string winners;
  bool changes = false;
  for (const auto& [by, name] : r.winners) {
    winners += fmt::format("{}{}: {}", winners.empty() ? "" : "; ", rank_by_name(by), name);
    changes = changes || name != r.winners.front().second;
  }
  if (changes)
    a.advice.push_back({"Rank by the criterion the purchase is judged on: hpcsens predict --mix " + r.mix->path +
                            " --rank-by speedup|throughput|per-price|per-watt.",
                        "the winner per criterion: " + winners});
}

}  // namespace

std::vector<std::string> extrapolated_pairs(const MixResult& r) {
  std::vector<std::string> out;
  for (const auto& s : r.systems)
    for (const auto& a : s.apps)
      if (!a.pred.extrapolated.empty()) out.push_back(s.system.name + "/" + a.name);
  return out;
}

Answer mix_answer(const MixResult& r) {
  Answer a;
  if (r.systems.empty()) {
    a.headline = "No candidate system was ranked.";
    return a;
  }
  a.headline = headline(r, a.tone);
  for (const auto& app : r.mix->apps) a.tone = worse(a.tone, tone_of(app.model.verdict.word));
  if (r.systems.size() > 1 && (!r.overlaps.empty() || !extrapolated_pairs(r).empty())) a.tone = worse(a.tone, "caution");
  caveats(r, a);
  advice(r, a);
  return a;
}

}  // namespace hpcsens::model
