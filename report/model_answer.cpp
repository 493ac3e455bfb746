// The answer of a model and of a sweep: which verdict, what the sweep varied and what it held,
// and what to do next, each action tied to the figure behind it (docs/methodology.md, "The answer
// first"). Pure functions of the model JSON and the rates' roles.
#include <fmt/core.h>

#include <cctype>
#include <cmath>
#include <filesystem>

#include "common/answer.h"
#include "report/json_access.h"
#include "report/model_view.h"

namespace hpcsens::report {
namespace {

using nlohmann::json;
namespace ja = json_access;

std::string sentence(std::string s) {
  if (s.empty()) return s;
  s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
  return s.back() == '.' ? s : s + ".";
}

double number_or(const json& j, const char* key, double fallback = NAN) {
  const json v = ja::maybe(j, key);
  return v.is_number() ? v.get<double>() : fallback;
}

std::string answer_pct(double v) { return fmt::format("{:.1f} %", 100 * v); }

std::string ranges(const std::vector<const RateRole*>& varied) {
  std::string out;
  for (std::size_t i = 0; i < varied.size(); ++i)
    out += (i == 0 ? "" : i + 1 == varied.size() ? " and " : ", ") + range_text(*varied[i]);
  return out;
}

const RateRole* role_of(const std::vector<RateRole>& roles, const std::string& key) {
  for (const auto& r : roles)
    if (r.axis->key == key) return &r;
  return nullptr;
}

// A command that runs as written: the shipped candidates where they are installed, else a copy of
// the sources' example the user makes (it named a SYSTEMS.yaml no one had).
std::string predict_command(const ModelPlace& place) {
  const std::string predict =
      place.systems_example.empty()
          ? "hpcsens predict " + place.path + " --system candidates.yaml (copy examples/systems/candidates.yaml of the "
            "hpcsens sources, installed as share/hpcsens/examples/systems/candidates.yaml, and put in your candidate "
            "systems' rates)"
          : "hpcsens predict " + place.path + " --system " + place.systems_example +
                " (example candidates: copy it and put in your systems' rates)";
  return place.keep_command.empty() ? predict : place.keep_command + ", then " + predict;
}

// Terms the data cannot determine: widen the range of the rate behind each.
void term_advice(const json& m, const std::vector<RateRole>& roles, Answer& a) {
  for (const auto& t : m.value("terms", json::array())) {
    const std::string why = ja::text(t, "unreliable");
    if (why.empty()) continue;
    const std::string name = ja::text(t, "name", "?");
    const model::Term* term = nullptr;
    for (const auto& info : model::all_terms())
      if (name == info.name) term = &info.term;
    const RateRole* r = term ? role_of(roles, model::rate_name(model::term_info(*term).rate)) : nullptr;
    a.advice.push_back(r ? fmt::format("Vary {} further than {:.4g} to {:.4g} {}, or repeat each point more often: T_{} "
                                       "is not determined ({}).", r->axis->words, r->lo, r->hi, r->axis->unit, name, why)
                         : fmt::format("T_{} is not determined ({}): vary its rate further.", name, why));
  }
}

// What the fit's numbers say to do when the verdict is not ok.
void fit_advice(const json& m, const std::vector<RateRole>& roles, Answer& a) {
  const json d = m.value("diagnostics", json::object());
  const double noise = number_or(m, "noise"), loo = number_or(d, "loocv_mape"), mape = number_or(d, "mape");
  if (std::isfinite(noise) && noise >= 0.02)
    a.advice.push_back(fmt::format("Repeat each point more often, or run on a quieter machine: repeated runs of one "
                                   "configuration differ by {} (run-to-run noise).", answer_pct(noise)));
  if (std::isfinite(loo) && loo > 0.10)
    a.advice.push_back(fmt::format("Add configurations between the measured ones: leaving one configuration out "
                                   "mispredicts it by {} on average (in-sample {}).", answer_pct(loo), answer_pct(mape)));
  for (const auto& t : d.value("residual_trends", json::array())) {
    const RateRole* r = role_of(roles, ja::text(t, "rate"));
    if (!t.value("significant", false) || !r || !r->varied) continue;
    a.advice.push_back(fmt::format("Fit a model with another term in {}: the residuals trend with it (r = {:.2f}); "
                                   "compare models with hpcsens fit --model (docs/methodology.md).",
                                   r->axis->words, number_or(t, "r", 0)));
  }
  const RateRole* cpu = role_of(roles, "cpu_ghz");
  for (const auto& n : m.value("notes", json::array()))
    if (n.is_string() && cpu && cpu->varied && n.get<std::string>().find("requested core clock") != std::string::npos)
      a.advice.push_back("Measure the clock at every point (calibration.clock: true in the spec): " + n.get<std::string>() + ".");
}

// A large constant part and rates the sweep held: varying them splits it.
void held_advice(const json& m, const std::vector<RateRole>& roles, Answer& a) {
  std::vector<std::string> held;
  for (const auto& r : roles)
    if (!r.varied) held.push_back(r.axis->words + " (held at " + shown_value(*r.axis, r.median) + ")");
  if (held.empty()) return;
  for (const auto& t : m.value("terms", json::array())) {
    const std::string name = ja::text(t, "name");
    const double share = number_or(t.value("share", json::object()), "fit", 0);
    if ((name != "fixed" && name != "io") || share < 0.5) continue;  // constant terms: work is seconds
    std::string list;
    for (std::size_t i = 0; i < held.size(); ++i) list += (i == 0 ? "" : i + 1 == held.size() ? " and " : ", ") + held[i];
    a.advice.push_back(fmt::format("Vary {} too, to split T_{} ({:.4g} s, {} of the baseline's modelled time) into "
                                   "the parts each rate drives.", list, name, number_or(t, "work", 0), answer_pct(share)));
  }
}

}  // namespace

std::string ModelPlace::installed_systems_example() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  const auto example = exe.parent_path().parent_path() / "share/hpcsens/examples/systems/candidates.yaml";
  return std::filesystem::is_regular_file(example, ec) ? example.lexically_normal().string() : "";
}

Answer model_answer(const json& m, const std::vector<RateRole>& roles, const ModelPlace& place) {
  Answer a;
  const std::string verdict = ja::text(m, "verdict");
  a.tone = verdict == "ok" ? "ok" : verdict == "unreliable" ? "bad" : "caution";
  std::vector<std::string> reasons;
  for (const auto& r : m.value("verdict_reasons", json::array()))
    if (r.is_string()) reasons.push_back(r.get<std::string>());
  a.headline = "Verdict: " + (verdict.empty() ? std::string("none (a model file from before verdicts)") : verdict);
  if (verdict == "unreliable") a.headline += ", do not use this model for projections";
  a.headline += ".";
  const std::string s = ja::text(m, "sensitivity");
  if (!s.empty() && verdict != "unreliable") a.headline += " " + sentence(s);
  const auto varied = varied_roles(roles);
  a.headline += varied.empty() ? " The sweep varied no rate beyond its measurement noise."
                               : " The sweep varied " + ranges(varied) + ".";

  // The verdict's reasons in the sentence a prediction and a mix on this model say (common/answer.h).
  if (!verdict.empty() && verdict != "ok") a.caveats.push_back(answer::model_verdict_caveat(verdict, reasons));
  for (const auto& r : roles)
    if (!r.varied) a.caveats.push_back(sentence(held_text(r) + ": the model states no sensitivity to it"));
  if (m.value("emulated", false))
    a.caveats.push_back(answer::emulated_caveat("the model"));

  const double loo = number_or(m.value("diagnostics", json::object()), "loocv_mape");
  const std::string within = varied.empty() ? "" : " within the measured range (" + ranges(varied) + ")";
  if (verdict == "ok")
    a.advice.push_back(fmt::format("Project it onto candidate systems{}, where leaving one configuration out "
                                   "mispredicts it by {}: {}.", within, answer_pct(loo), predict_command(place)));
  else if (verdict == "caution")
    a.advice.push_back(fmt::format("Use its projections only with their intervals{} (leave-one-out error {}): {}.",
                                   within, answer_pct(loo), predict_command(place)));
  term_advice(m, roles, a);
  if (verdict != "ok") fit_advice(m, roles, a);
  if (verdict == "unreliable" && a.advice.empty())
    a.advice.push_back(varied.empty() ? "Sweep again with knobs that move a rate beyond its noise (docs/spec-format.md)."
                                      : "Sweep again: vary " + ranges(varied) + " further and repeat each point.");
  held_advice(m, roles, a);
  return a;
}

std::vector<std::string> fit_notes(const json& m) {
  std::vector<std::string> out;
  const json sel = m.value("selection", json::object());
  if (const std::string r = ja::text(sel, "reason"); !r.empty()) out.push_back("Model choice: " + r + (r.back() == '.' ? "" : "."));
  for (const auto& n : m.value("notes", json::array()))
    if (const std::string t = n.is_string() ? n.get<std::string>() : ""; !t.empty())
      out.push_back("Fit note: " + t + (t.back() == '.' ? "" : "."));  // not capitalised: it may open with a rate key
  return out;
}

}  // namespace hpcsens::report
