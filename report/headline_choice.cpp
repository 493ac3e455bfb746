// The answers of a model, a prediction and a mix: which verdict, which resource matters, which
// system wins on which criterion and whether that holds (rules: docs/methodology.md, "The answer
// first"). Pure functions of the JSON the other commands write.
#include <fmt/core.h>

#include <cctype>
#include <cmath>

#include "report/headline.h"
#include "common/human_units.h"
#include "report/json_access.h"

namespace hpcsens::report {
namespace {

using nlohmann::json;
namespace ja = json_access;

double number_or(const json& j, const char* key, double fallback = NAN) {
  const json v = ja::maybe(j, key);
  return v.is_number() ? v.get<double>() : fallback;
}

std::string tone_of(const std::string& verdict) {
  return verdict == "ok" ? "ok" : verdict == "unreliable" ? "bad" : "caution";
}

std::string first_reason(const json& j) {
  const json r = j.value("verdict_reasons", json::array());
  return r.is_array() && !r.empty() && r[0].is_string() ? r[0].get<std::string>() : std::string();
}

std::string sentence(std::string s) {
  if (s.empty()) return s;
  s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
  return s.back() == '.' ? s : s + ".";
}

}  // namespace

std::string model_formula(const std::string& m) {
  if (m == "cpu+fixed") return "T = W_cpu / R_cpu + T_fixed";
  if (m == "mem+fixed") return "T = W_mem / R_mem + T_fixed";
  if (m == "cpu+mem") return "T = W_cpu / R_cpu + W_mem / R_mem";
  if (m == "cpu+mem+io") return "T = W_cpu / R_cpu + W_mem / R_mem + T_io";
  if (m == "cpu+mem+lat") return "T = W_cpu / R_cpu + W_mem / R_mem + W_lat x L";
  if (m == "cpu+mem+io+lat") return "T = W_cpu / R_cpu + W_mem / R_mem + T_io + W_lat x L";
  if (m == "overlap")
    return "T = S - w x min(T_cpu, T_mem), S = T_cpu + T_mem + T_io, T_cpu = W_cpu / R_cpu, T_mem = W_mem / R_mem";
  return "T = the sum of the fitted terms (work / rate)";
}

Answer model_answer(const json& m) {
  Answer a;
  const std::string verdict = ja::text(m, "verdict");
  a.tone = tone_of(verdict);
  const std::string reason = first_reason(m);
  a.headline = "Verdict: " + (verdict.empty() ? std::string("none (a model file from before verdicts)") : verdict);
  if (verdict == "unreliable") a.headline += ", do not use this model for projections";
  a.headline += reason.empty() ? "." : " (" + reason + ").";
  const std::string s = ja::text(m, "sensitivity");
  if (!s.empty() && verdict != "unreliable") a.headline += " " + sentence(s);
  if (verdict == "ok")
    a.advice.push_back("Project it onto candidate systems: hpcsens predict MODEL.json --system candidates.yaml.");
  else if (verdict == "unreliable")
    a.advice.push_back("Sweep again before using it: vary the rates further, check that the knob changed the clock "
                       "(calibration.clock in the spec) and repeat each point.");
  else
    a.advice.push_back("Use its projections with their intervals: more repetitions per point or a wider rate range "
                       "narrow them.");
  if (m.contains("selection") && m["selection"].is_object() && !ja::text(m["selection"], "reason").empty())
    a.advice.push_back("Model choice: " + ja::text(m["selection"], "reason") +
                       (ja::text(m["selection"], "reason").back() == '.' ? "" : "."));
  for (const auto& n : m.value("notes", json::array()))
    if (n.is_string()) a.advice.push_back(sentence(n.get<std::string>()));
  return a;
}

Answer prediction_answer(const json& p) {
  Answer a;
  const json list = p.value("predictions", json::array());
  const std::string verdict = ja::text(p, "verdict");
  a.tone = tone_of(verdict);
  if (!list.is_array() || list.empty() || !list[0].is_object()) {
    a.headline = "No candidate system was projected.";
    return a;
  }
  const json base = p.value("baseline", json::object());
  const std::string app = ja::text(p, "app").empty() ? std::string("The application") : ja::text(p, "app");
  const std::string baseline = fmt::format("the baseline '{}' ({} at {:g} GHz, {:g} GB/s)", ja::text(base, "label"),
                                           human::seconds(number_or(base, "time_s")), number_or(base, "cpu_ghz", 0),
                                           number_or(base, "mem_gbs", 0));
  const json& best = list[0];
  a.headline = fmt::format("{} {} {} on {}, {:.2f}x as fast as {}.", app,
                           list.size() > 1 ? "runs fastest, in" : "is projected to take",
                           human::seconds(number_or(best, "predicted_s")), ja::text(best, "name"), number_or(best, "speedup", 0),
                           baseline);
  const bool holds = p.value("ranking_holds", true);
  if (list.size() > 1)
    a.headline += holds ? " The ranking holds across the fit intervals." : " The ranking does not hold: intervals overlap.";
  if (!holds && a.tone == "ok") a.tone = "caution";
  if (verdict == "unreliable") a.advice.push_back("The model's verdict is unreliable: sweep again before buying on it.");
  if (verdict == "caution") a.advice.push_back("The model's verdict is caution: read its reasons below.");
  if (!holds)
    a.advice.push_back("Separate the candidates with more repetitions per sweep point (narrower fit intervals).");
  return a;
}

Answer mix_answer(const json& mix) {
  Answer a;
  const json systems = mix.value("systems", json::array());
  if (!systems.is_array() || systems.empty() || !systems[0].is_object()) {
    a.headline = "No candidate system was ranked.";
    return a;
  }
  const std::string by = ja::text(mix, "rank_by", "speedup");
  const json& best = systems[0];
  const std::string key = by == "per-price" ? "per_price" : by == "per-watt" ? "per_watt" : by;
  const double v = number_or(best, key.c_str());
  const std::string value = by == "speedup" ? fmt::format("{:.2f}x the baseline", v)
                            : by == "throughput" ? fmt::format("{:.2f}x the baseline's throughput", v)
                                                 : human::per_money(v) + (by == "per-watt" ? " per watt" : " per price");
  a.headline = fmt::format("Ranked by {}, {} wins ({})", by, ja::text(best, "name"), value);
  const bool holds = mix.value("ranking_holds", true);
  a.headline += systems.size() < 2 ? "." : holds ? ", and the ranking holds across the intervals."
                                                 : ", but the ranking does not hold across the intervals.";
  a.tone = holds ? "ok" : "caution";
  std::string others;
  const json winners = mix.value("winners", json::object());  // items() must not outlive it
  for (const auto& [criterion, name] : winners.items())
    if (criterion != by && name.is_string() && name != best.value("name", json()))
      others += fmt::format("{}{} wins on {}", others.empty() ? "" : "; ", name.get<std::string>(), criterion);
  if (!others.empty()) a.headline += " The winner changes with the criterion: " + others + ".";
  for (const auto& app : mix.value("applications", json::array()))
    if (ja::text(app, "verdict") == "unreliable") {
      a.tone = "bad";
      a.advice.push_back("Application '" + ja::text(app, "name") + "' has an unreliable model: sweep it again before "
                         "buying on this ranking.");
    }
  if (!holds) a.advice.push_back("Narrow the intervals (more repetitions per sweep point) before choosing between "
                                 "the overlapping systems.");
  a.advice.push_back("Rank by another criterion with hpcsens predict --mix ... --rank-by speedup|throughput|per-price|"
                     "per-watt.");
  return a;
}

}  // namespace hpcsens::report
