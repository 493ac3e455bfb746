// Predictions as a table, Markdown, CSV or JSON (hpcsens.prediction.v1). Each opens with the one
// answer (model/predict_answer.h) built once here; the rates are shown as the user gives them, one
// column per rate the model uses or a candidate gave, with each candidate's own verdict and
// extrapolation beside its projection.
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

#include "common/errors.h"
#include "model/energy_json.h"
#include "model/energy_render.h"
#include "model/fit_output.h"
#include "model/number_format.h"
#include "model/predict_answer.h"
#include "model/predict_rates.h"

namespace hpcsens::model {
namespace {

using nlohmann::json;

json rates_json(const Prediction& p) {
  json out = json::array();
  for (const auto& r : p.rates)
    out.push_back({{"name", r.name}, {"unit", r.unit}, {"value", r.value}, {"given", r.given},
                   {"modelled", r.modelled}, {"beyond", r.beyond}});
  return out;
}

json prediction_json(const Prediction& p) {
  json j = {{"name", p.system.name},
            {"cpu_ghz", json_number(p.system.cpu_ghz > 0 ? p.system.cpu_ghz : NAN)},
            {"mem_gbs", json_number(p.system.mem_gbs > 0 ? p.system.mem_gbs : NAN)},
            {"rates", rates_json(p)},
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

// The columns of the rates: every rate the model uses, then every other rate some candidate gave.
std::vector<PredictedRate> shown_rates(const std::vector<Prediction>& preds) {
  std::vector<PredictedRate> out;
  for (const auto& u : user_rates())
    for (const auto& p : preds)
      for (const auto& r : p.rates)
        if (r.name == u.name && (r.modelled || r.given) &&
            std::none_of(out.begin(), out.end(), [&](const PredictedRate& x) { return x.name == r.name; }))
          out.push_back(r);
  return out;
}

std::string rate_cell(const Prediction& p, const PredictedRate& column) {
  for (const auto& r : p.rates)
    if (r.name == column.name) return fmt::format("{:g}", r.value) + (r.given ? "" : " (baseline)");
  return "-";
}

json baseline_json(const ModelReport& m, const Prediction* any) {
  const Point& b = m.points[m.baseline];
  json j = {{"label", b.label}, {"cpu_ghz", b.cpu_ghz}, {"mem_gbs", json_number(b.mem_gbs)}, {"time_s", b.time_s},
            {"model_s", any ? json(any->baseline_model_s) : json()}};
  for (const auto& r : user_rates())
    if (r.rate != Rate::cpu_ghz && r.rate != Rate::mem_gbs && std::isfinite(user_value(r, b)))
      j[r.name] = user_value(r, b);
  return j;
}

std::string render_json(const ModelReport& m, const std::vector<Prediction>& preds, const Answer& a,
                        const std::string& model_path) {
  json arr = json::array(), rates = json::array();
  for (const auto& p : preds) arr.push_back(prediction_json(p));
  for (const auto& r : shown_rates(preds))
    rates.push_back({{"name", r.name}, {"unit", r.unit}, {"modelled", r.modelled},
                     {"measured_low", json_number(r.measured_lo)}, {"measured_high", json_number(r.measured_hi)}});
  const auto overlaps = ranking_overlaps(preds);
  bool extrapolated = false;
  for (const auto& p : preds) extrapolated = extrapolated || !p.extrapolated.empty();
  json out = {{"schema", "hpcsens.prediction.v1"},
              {"model", m.spec.name()},
              {"model_path", model_path},
              {"app", m.app},
              {"emulated", m.emulated},
              {"verdict", m.verdict.word},
              {"verdict_reasons", m.verdict.reasons},
              {"answer", answer_json(a)},
              {"ranking_holds", overlaps.empty()},
              {"ranking_overlaps", overlaps},
              {"ranking_extrapolated", extrapolated},
              {"rates", rates},
              {"baseline", baseline_json(m, preds.empty() ? nullptr : &preds.front())},
              {"predictions", arr}};
  if (preds.size() == 1)
    for (const char* k : {"predicted_s", "low_s", "high_s", "speedup"}) out[k] = arr[0][k];
  out["energy"] = energy_to_json(m.energy);
  return out.dump(2) + "\n";
}

std::string range(std::optional<double> lo, std::optional<double> hi) {
  if (!lo || !hi) return "-";
  return fmt::format("{:.4g}-{:.4g}", *lo, *hi);
}

std::string extrapolation_cell(const Prediction& p) {
  if (p.extrapolated.empty()) return "-";
  std::string rates;
  for (const auto& r : p.extrapolated) rates += (rates.empty() ? "" : ",") + r;
  return fmt::format("EXTRAPOLATED {:.2f}x {}", p.extrapolation, rates);
}

// Header and rows of the candidate table, shared by text, Markdown and CSV.
std::vector<std::vector<std::string>> candidate_rows(const std::vector<Prediction>& preds, bool csv) {
  const auto columns = shown_rates(preds);
  std::vector<std::string> header{"rank", "system"};
  for (const auto& c : columns) header.push_back(c.name + (c.modelled ? "" : " (not in model)"));
  for (const char* h : {"predicted_s", "fit interval s", "overlap range s", "speedup", "verdict", "extrapolation"})
    header.push_back(h);
  if (csv) header = {"rank", "system"};
  if (csv) {
    for (const auto& c : columns) header.push_back(c.name), header.push_back(c.name + "_given");
    for (const char* h : {"predicted_s", "fit_low_s", "fit_high_s", "overlap_low_s", "overlap_high_s", "speedup",
                          "speedup_low", "speedup_high", "verdict", "extrapolation", "extrapolated_rates"})
      header.push_back(h);
  }
  std::vector<std::vector<std::string>> rows{header};
  int i = 0;
  for (const auto& p : preds) {
    std::vector<std::string> row{std::to_string(++i), p.system.name};
    for (const auto& c : columns) {
      auto at = std::find_if(p.rates.begin(), p.rates.end(), [&](const PredictedRate& r) { return r.name == c.name; });
      if (csv) row.push_back(at == p.rates.end() ? "" : csv_number(at->value)),
          row.push_back(at == p.rates.end() ? "" : at->given ? "true" : "false");
      else row.push_back(rate_cell(p, c));
    }
    if (csv) {
      std::string rates;
      for (const auto& r : p.extrapolated) rates += (rates.empty() ? "" : ";") + r;
      for (const auto& v : {csv_number(p.predicted_s), csv_number(p.fit_low_s), csv_number(p.fit_high_s),
                            csv_number(p.overlap_low_s), csv_number(p.overlap_high_s), csv_number(p.speedup),
                            csv_number(p.speedup_low), csv_number(p.speedup_high), p.verdict,
                            csv_number(p.extrapolation), rates})
        row.push_back(v);
    } else {
      for (const auto& v : {fmt::format("{:.4g}", p.predicted_s), range(p.fit_low_s, p.fit_high_s),
                            range(p.overlap_low_s, p.overlap_high_s), fmt::format("{:.3f}x", p.speedup),
                            p.verdict == "unreliable" ? std::string("UNRELIABLE") : p.verdict, extrapolation_cell(p)})
        row.push_back(v);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string aligned(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> w(rows.front().size(), 0);
  for (const auto& r : rows)
    for (std::size_t c = 0; c < r.size(); ++c) w[c] = std::max(w[c], r[c].size());
  std::string o;
  for (const auto& r : rows) {
    std::string line = " ";
    for (std::size_t c = 0; c < r.size(); ++c) line += " " + r[c] + std::string(w[c] - r[c].size() + 1, ' ');
    while (line.back() == ' ') line.pop_back();
    o += line + "\n";
  }
  return o;
}

std::string pipe_table(const std::vector<std::vector<std::string>>& rows) {
  std::string o;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    o += "|";
    for (const auto& c : rows[i]) o += " " + c + " |";
    o += "\n";
    if (i == 0) {
      o += "|";
      for (std::size_t c = 0; c < rows[0].size(); ++c) o += "---|";
      o += "\n";
    }
  }
  return o;
}

std::string csv_line(const std::vector<std::string>& cells) {
  std::string o;
  for (std::size_t c = 0; c < cells.size(); ++c) {
    const std::string& s = cells[c];
    const bool quote = s.find_first_of(",\"\n") != std::string::npos;
    std::string q = s;
    for (std::size_t at = 0; quote && (at = q.find('"', at)) != std::string::npos; at += 2) q.insert(at, "\"");
    o += (c ? "," : "") + (quote ? "\"" + q + "\"" : s);
  }
  return o + "\n";
}

// The lines under the table: what the two ranges mean, the per-prediction warnings.
std::string notes(const std::vector<Prediction>& preds) {
  std::string o = fmt::format(
      "fit interval: 95% range from the fitted work's uncertainty ({}); it narrows with more runs and less noise, "
      "and widens with the model error where a rate is extrapolated.\n",
      preds.empty() || preds[0].interval_method == "covariance"
          ? "covariance of the fit"
          : "jackknife over configurations, which widens when the model misses how the code scales");
  o += "overlap range: every split of the work consistent with the measurements, from all components in series to "
       "fully overlapped; it does not narrow with more runs.\n";
  o += "speedup: the model's time at the baseline over its projection (a candidate with the baseline's rates is "
       "1.000x).\n";
  for (const auto& p : preds)
    for (const auto& w : p.warnings)  // EMULATED and an unreliable model are said once, above
      if (w.rfind("EMULATED", 0) != 0 && w.rfind("UNRELIABLE model", 0) != 0)
        o += fmt::format("warning: {}: {}\n", p.system.name, w);
  return o;
}

std::string header_lines(const ModelReport& m, const std::vector<Prediction>& preds, bool md) {
  const Point& b = m.points[m.baseline];
  std::string base_rates;
  for (const auto& r : user_rates())
    if (model_uses(m.spec, r.rate)) base_rates += (base_rates.empty() ? "" : ", ") + answer_rules::rate_text(user_value(r, b), r.unit);
  std::string o = fmt::format("model {}{}; baseline '{}' ({}) measured {:.4g} s, modelled {:.4g} s\n", m.spec.name(),
                              m.app.empty() ? "" : " of " + m.app, b.label, base_rates, b.time_s,
                              preds.empty() ? b.time_s : preds.front().baseline_model_s);
  o += fmt::format("model's verdict: {}\n", m.verdict.word == "unreliable" ? "UNRELIABLE" : m.verdict.word);
  for (const auto& why : m.verdict.reasons) o += "  - " + why + "\n";
  return md ? o + "\n" : o;
}

}  // namespace

std::string render_predictions(const ModelReport& m, const std::vector<Prediction>& preds, const std::string& format,
                               const std::string& model_path) {
  // once; every format renders it
  return render_predictions(m, preds, prediction_answer(m, preds, model_path), format, model_path);
}

std::string render_predictions(const ModelReport& m, const std::vector<Prediction>& preds, const Answer& a,
                               const std::string& format, const std::string& model_path) {
  if (format == "json") return render_json(m, preds, a, model_path);
  if (format == "csv") {
    std::string o;  // tidy data only: the answer is in every other format
    for (const auto& row : candidate_rows(preds, true)) o += csv_line(row);
    return o;
  }
  const bool md = format == "md";
  if (!md && format != "table")
    throw InputError("--format", "unknown format '" + format + "' (expected table, md, csv, json or html)");
  std::string o;
  if (m.emulated) o += md ? "**EMULATED MODEL**: fitted to emulated runs, not measurements\n\n"
                          : "EMULATED MODEL — fitted to emulated runs, not measurements\n";
  o += md ? answer_markdown(a) : answer_text(a);
  o += header_lines(m, preds, md);
  const auto rows = candidate_rows(preds, false);
  o += "\n" + (md ? pipe_table(rows) : aligned(rows)) + "\n";
  o += notes(preds);
  o += render_energy(m.energy, md);
  return o;
}

}  // namespace hpcsens::model
