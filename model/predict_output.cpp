// Predictions as a table or JSON (hpcsens.prediction.v1). The verdict of the model leads both;
// an unreliable model's predictions are labelled on every line.
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <cmath>

#include "common/errors.h"
#include "model/fit_output.h"
#include "model/number_format.h"

namespace hpcsens::model {
namespace {

using nlohmann::json;

json prediction_json(const Prediction& p) {
  json j = {{"name", p.system.name},
            {"cpu_ghz", p.system.cpu_ghz},
            {"mem_gbs", p.system.mem_gbs},
            {"predicted_s", p.predicted_s},
            {"low_s", p.low_s},
            {"high_s", p.high_s},
            {"fit_low_s", p.fit_low_s},
            {"fit_high_s", p.fit_high_s},
            {"overlap_low_s", json_number(p.overlap_low_s)},
            {"overlap_high_s", json_number(p.overlap_high_s)},
            {"speedup", p.speedup},
            {"speedup_low", json_number(p.speedup_low)},
            {"speedup_high", json_number(p.speedup_high)},
            {"cpu_work_factor", p.system.cpu_work_factor},
            {"interval_method", p.interval_method},
            {"covariance_low_s", p.cov_low_s},
            {"covariance_high_s", p.cov_high_s},
            {"extrapolated", !p.extrapolated.empty()},
            {"extrapolated_rates", p.extrapolated},
            {"extrapolation", p.extrapolation},
            {"verdict", p.verdict},
            {"verdict_reasons", p.verdict_reasons},
            {"warnings", p.warnings}};
  if (p.system.lat_ns) j["lat_ns"] = *p.system.lat_ns;
  if (p.system.net_latency_us) j["net_latency_us"] = *p.system.net_latency_us;
  if (p.system.net_bandwidth_gbs) j["net_bandwidth_gbs"] = *p.system.net_bandwidth_gbs;
  return j;
}

// What every line of the table says about itself: UNRELIABLE, EXTRAPOLATED, or nothing.
std::string line_label(const Prediction& p) {
  std::string s = p.verdict == "unreliable" ? "UNRELIABLE" : p.verdict == "caution" && !p.extrapolated.empty() ? "caution" : "";
  if (!p.extrapolated.empty()) s += (s.empty() ? "" : " ") + std::string("EXTRAPOLATED");
  return s;
}

// A ranking that rests on extrapolated predictions says so in its one-line conclusion.
std::string extrapolated_note(const std::vector<Prediction>& preds) {
  std::string names;
  for (const auto& p : preds)
    if (!p.extrapolated.empty()) names += (names.empty() ? "" : ", ") + p.system.name;
  return names.empty() ? "" : ", but it rests on extrapolated predictions (" + names + ")";
}

std::string range(std::optional<double> lo, std::optional<double> hi) {
  if (!lo || !hi) return "n/a";
  return fmt::format("{:.4g}-{:.4g}", *lo, *hi);
}

}  // namespace

std::string render_predictions(const ModelReport& m, const std::vector<Prediction>& preds,
                               const std::string& format) {
  const Point& b = m.points[m.baseline];
  const auto overlaps = ranking_overlaps(preds);
  if (format == "json") {
    json arr = json::array();
    for (const auto& p : preds) arr.push_back(prediction_json(p));
    json out = {{"schema", "hpcsens.prediction.v1"},
                {"model", m.spec.name()},
                {"app", m.app},
                {"emulated", m.emulated},
                {"verdict", m.verdict.word},
                {"verdict_reasons", m.verdict.reasons},
                {"ranking_holds", overlaps.empty()},
                {"ranking_overlaps", overlaps},
                {"baseline", {{"label", b.label}, {"cpu_ghz", b.cpu_ghz}, {"mem_gbs", json_number(b.mem_gbs)}, {"time_s", b.time_s}}},
                {"predictions", arr}};
    if (preds.size() == 1)
      for (const char* k : {"predicted_s", "low_s", "high_s", "speedup"}) out[k] = arr[0][k];
    return out.dump(2) + "\n";
  }
  if (format != "table") throw InputError("--format", "unknown format '" + format + "' (expected table or json)");
  const bool unreliable = m.verdict.word == "unreliable";
  bool labels = false;
  for (const auto& p : preds) labels = labels || !line_label(p).empty();
  std::string o;
  if (m.emulated) o += "EMULATED MODEL — fitted to emulated runs, not measurements\n";
  o += fmt::format("model {}{}; baseline '{}' ({:g} GHz, {}) measured {:.4g} s\n", m.spec.name(),
                   m.app.empty() ? "" : " of " + m.app, b.label, b.cpu_ghz, gbs_text(b.mem_gbs), b.time_s);
  o += fmt::format("verdict: {}\n", unreliable ? "UNRELIABLE" : m.verdict.word);
  for (const auto& why : m.verdict.reasons) o += "  - " + why + "\n";
  o += fmt::format("\n  {:<4} {:<16} {:>8} {:>8} {:>11} {:>19} {:>19} {:>8}{}\n", "rank", "system", "cpu_ghz",
                   "mem_gbs", "predicted_s", "fit interval s", "overlap range s", "speedup",
                   labels ? "  label" : "");
  int i = 0;
  for (const auto& p : preds)
    o += fmt::format("  {:<4} {:<16} {:>8g} {:>8} {:>11.4g} {:>19} {:>19} {:>7.3f}x{}\n", ++i, p.system.name,
                     p.system.cpu_ghz, table_number(p.system.mem_gbs),
                     p.predicted_s,
                     range(p.fit_low_s, p.fit_high_s), range(p.overlap_low_s, p.overlap_high_s), p.speedup,
                     labels ? "  " + line_label(p) : "");
  o += fmt::format("\nfit interval: 95% range from the fitted work's uncertainty ({}); it narrows with more runs "
                   "and less noise, and widens with the model error where a rate is extrapolated.\n",
                   preds.empty() || preds[0].interval_method == "covariance"
                       ? "covariance of the fit"
                       : "jackknife over configurations, which widens when the model misses how the code scales");
  o += "overlap range: every split of the work consistent with the measurements, from all components in series to "
       "fully overlapped; it does not narrow with more runs.\n";
  for (const auto& p : preds)
    if (p.verdict != m.verdict.word)
      o += fmt::format("{} of {}: verdict {}: {}\n", p.extrapolated.empty() ? "prediction" : "EXTRAPOLATED prediction",
                       p.system.name, p.verdict, p.verdict_reasons.empty() ? "" : p.verdict_reasons.back());
  if (preds.size() > 1)
    o += overlaps.empty() ? "the ranking holds across the fit intervals" + extrapolated_note(preds) + "\n"
                          : "the ranking does not hold across the fit intervals between " +
                                [&] {
                                  std::string s;
                                  for (const auto& x : overlaps) s += (s.empty() ? "" : ", ") + x;
                                  return s;
                                }() + extrapolated_note(preds) + "\n";
  for (const auto& p : preds)
    for (const auto& w : p.warnings) o += fmt::format("warning: {}: {}\n", p.system.name, w);
  return o;
}

}  // namespace hpcsens::model
