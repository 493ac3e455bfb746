// The answers of a model, a prediction and a mix: which verdict, which resource matters, which
// system wins on which criterion and whether that holds (rules: docs/methodology.md, "The answer
// first"). Pure functions of the JSON the other commands write.
#include <fmt/core.h>

#include <cctype>
#include <cmath>

#include "report/headline.h"
#include "report/json_access.h"

namespace hpcsens::report {
namespace {

using nlohmann::json;
namespace ja = json_access;

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

}  // namespace hpcsens::report
