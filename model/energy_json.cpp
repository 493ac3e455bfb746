#include "model/energy_json.h"

#include <cmath>

#include "common/errors.h"
#include "model/number_format.h"

namespace hpcsens::model {
namespace {

using nlohmann::json;

json pct_json(double f) { return json_number(100 * f); }

json decision_json(const EnergyReport& e, const EnergyDecision& d) {
  const EnergyPoint& p = e.points[d.point];
  json j = {{"criterion", d.criterion},
            {"label", p.cfg.label},
            {"cpu_ghz", p.cfg.cpu_ghz},
            {"uncore_ghz", json_number(p.cfg.uncore_ghz)},
            {"mem_gbs", json_number(p.cfg.mem_gbs)},
            {"source", p.cfg.source},
            {"energy_j", p.energy_j},
            {"energy_low", p.energy_low},
            {"energy_high", p.energy_high},
            {"time_s", p.cfg.time_s},
            {"time_low", d.time_low},
            {"time_high", d.time_high},
            {"energy_saving_pct", pct_json(d.saving)},
            {"energy_saving_low", pct_json(d.saving_low)},
            {"energy_saving_high", pct_json(d.saving_high)},
            {"slowdown_pct", pct_json(d.slowdown)},
            {"slowdown_low", pct_json(d.slowdown_low)},
            {"slowdown_high", pct_json(d.slowdown_high)},
            {"verdict", d.verdict},
            {"verdict_reasons", d.reasons},
            {"sentence", d.sentence}};
  if (&d == &e.within_slowdown) j["max_slowdown_pct"] = 100 * e.max_slowdown;
  return j;
}

json power_json(const PowerFit& f) {
  json terms = json::array(), names = json::array();
  for (size_t k = 0; k < f.form.size(); ++k)
    terms.push_back({{"name", power_term_name(f.form[k])},
                     {"basis", power_term_basis(f.form[k])},
                     {"unit", power_term_unit(f.form[k])},
                     {"value", f.params[k]},
                     {"low", json_number(k < f.low.size() ? f.low[k] : NAN)},
                     {"high", json_number(k < f.high.size() ? f.high[k] : NAN)}});
  return {{"form", power_form_text(f.form)},
          {"terms", terms},
          {"diagnostics",
           {{"mape", f.diag.mape}, {"max_abs_err", f.diag.max_abs_err}, {"r2", json_number(f.diag.r2)},
            {"loocv_mape", json_number(f.diag.loocv_mape)}}},
          {"noise", json_number(f.noise)},
          {"interval_method", f.interval_method},
          {"interval_t", f.t},
          {"jackknife_n", f.jackknife_n},
          {"parameters", f.params},
          {"jackknife_covariance", f.covariance},
          {"verdict", f.verdict.word},
          {"verdict_reasons", f.verdict.reasons}};
}

json points_json(const EnergyReport& e) {
  json pts = json::array();
  for (const auto& p : e.points)
    pts.push_back({{"label", p.cfg.label},
                   {"cpu_ghz", p.cfg.cpu_ghz},
                   {"uncore_ghz", json_number(p.cfg.uncore_ghz)},
                   {"mem_gbs", json_number(p.cfg.mem_gbs)},
                   {"source", p.cfg.source},
                   {"time_s", p.shown_time()},
                   {"energy_j", p.shown_energy()},
                   {"power_w", json_number(p.cfg.measured_power_w.value_or(p.power_w))},
                   {"model_time_s", p.cfg.time_s},
                   {"model_power_w", p.power_w},
                   {"model_energy_j", p.energy_j},
                   {"energy_low", p.energy_low},
                   {"energy_high", p.energy_high},
                   {"pareto", p.pareto}});
  return pts;
}

double number_at(const json& o, const char* key, const std::string& where) {
  if (!o.is_object() || !o.contains(key) || !o.at(key).is_number() || !std::isfinite(o.at(key).get<double>()))
    throw InputError(where + "." + key + "'", "missing or not a finite number");
  return o.at(key).get<double>();
}

PowerFit power_from_json(const json& pm, const std::string& where) {
  PowerFit f;
  if (!pm.is_object() || !pm.contains("terms") || !pm.at("terms").is_array())
    throw InputError(where + ".terms'", "missing or not a list");
  for (size_t k = 0; k < pm.at("terms").size(); ++k) {
    const json& t = pm.at("terms")[k];
    const std::string w = where + ".terms[" + std::to_string(k) + "]";
    if (!t.is_object() || !t.contains("name") || !t.at("name").is_string()) throw InputError(w + ".name'", "not a string");
    f.form.push_back(parse_power_term(t.at("name").get<std::string>(), w + ".name'"));
    f.params.push_back(number_at(t, "value", w));
  }
  f.t = pm.contains("interval_t") && pm.at("interval_t").is_number() ? pm.at("interval_t").get<double>() : 0;
  if (pm.contains("jackknife_covariance") && pm.at("jackknife_covariance").is_array())
    for (size_t a = 0; a < pm.at("jackknife_covariance").size(); ++a) {
      const json& row = pm.at("jackknife_covariance")[a];
      if (!row.is_array() || row.size() != f.form.size())
        throw InputError(where + ".jackknife_covariance[" + std::to_string(a) + "]'", "not a row of the terms' size");
      f.covariance.emplace_back();
      for (const auto& x : row) {
        if (!x.is_number()) throw InputError(where + ".jackknife_covariance'", "not a number");
        f.covariance.back().push_back(x.get<double>());
      }
    }
  if (!f.covariance.empty() && f.covariance.size() != f.form.size())
    throw InputError(where + ".jackknife_covariance'", "not square in the terms");
  if (pm.contains("verdict") && pm.at("verdict").is_string()) f.verdict.word = pm.at("verdict").get<std::string>();
  if (pm.contains("verdict_reasons") && pm.at("verdict_reasons").is_array())
    for (const auto& r : pm.at("verdict_reasons"))
      if (r.is_string()) f.verdict.reasons.push_back(r.get<std::string>());
  f.ok = true;
  return f;
}

double number_or_nan_at(const json& o, const char* key) {
  return o.is_object() && o.contains(key) && o.at(key).is_number() ? o.at(key).get<double>() : NAN;
}

std::string text_at(const json& o, const char* key, const std::string& where) {
  if (!o.is_object() || !o.contains(key) || !o.at(key).is_string())
    throw InputError(where + "." + key + "'", "missing or not a string");
  return o.at(key).get<std::string>();
}

std::vector<std::string> texts_at(const json& o, const char* key) {
  std::vector<std::string> out;
  if (o.is_object() && o.contains(key) && o.at(key).is_array())
    for (const auto& x : o.at(key))
      if (x.is_string()) out.push_back(x.get<std::string>());
  return out;
}

// A point as points_json wrote it: swept ones keep their recorded time, energy and power.
EnergyPoint point_from_json(const json& p, const std::string& w) {
  EnergyPoint out;
  EnergyConfig& c = out.cfg;
  c.label = text_at(p, "label", w), c.source = text_at(p, "source", w);
  if (c.source == "measured") c.source = "swept";  // the word before "swept"
  c.cpu_ghz = number_at(p, "cpu_ghz", w), c.mem_gbs = number_or_nan_at(p, "mem_gbs");
  if (std::isfinite(number_or_nan_at(p, "uncore_ghz"))) c.uncore_ghz = number_or_nan_at(p, "uncore_ghz");
  c.time_s = number_at(p, "model_time_s", w);
  out.power_w = number_at(p, "model_power_w", w), out.energy_j = number_at(p, "model_energy_j", w);
  out.energy_low = number_at(p, "energy_low", w), out.energy_high = number_at(p, "energy_high", w);
  out.pareto = p.is_object() && p.value("pareto", false);
  if (c.source == "swept") {
    c.measured_time_s = number_at(p, "time_s", w), c.measured_energy_j = number_at(p, "energy_j", w);
    c.measured_power_w = number_at(p, "power_w", w);
  }
  return out;
}

EnergyDecision decision_from_json(const json& d, const std::vector<EnergyPoint>& pts, const std::string& w) {
  EnergyDecision out;
  out.criterion = text_at(d, "criterion", w);
  const std::string label = text_at(d, "label", w), source = text_at(d, "source", w);
  out.point = pts.size();
  for (std::size_t i = 0; i < pts.size(); ++i)
    if (pts[i].cfg.label == label && (pts[i].cfg.source == source || source == "measured")) out.point = i;
  if (out.point == pts.size()) throw InputError(w + ".label'", "'" + label + "' is not one of the energy points");
  out.saving = number_at(d, "energy_saving_pct", w) / 100;
  out.saving_low = number_at(d, "energy_saving_low", w) / 100, out.saving_high = number_at(d, "energy_saving_high", w) / 100;
  out.slowdown = number_at(d, "slowdown_pct", w) / 100;
  out.slowdown_low = number_at(d, "slowdown_low", w) / 100, out.slowdown_high = number_at(d, "slowdown_high", w) / 100;
  out.time_low = number_at(d, "time_low", w), out.time_high = number_at(d, "time_high", w);
  out.verdict = text_at(d, "verdict", w), out.reasons = texts_at(d, "verdict_reasons");
  out.sentence = text_at(d, "sentence", w);
  return out;
}

// What power_json wrote beyond what a prediction needs: the intervals and diagnostics the text shows.
void power_display_from_json(const json& pm, PowerFit& f) {
  for (size_t k = 0; k < f.form.size(); ++k) {
    f.low.push_back(number_or_nan_at(pm.at("terms")[k], "low"));
    f.high.push_back(number_or_nan_at(pm.at("terms")[k], "high"));
  }
  const json diag = pm.contains("diagnostics") ? pm.at("diagnostics") : json();
  f.diag.mape = number_or_nan_at(diag, "mape"), f.diag.loocv_mape = number_or_nan_at(diag, "loocv_mape");
}

}  // namespace

EnergyReport energy_report_from_json(const json& j, const std::string& src) {
  ModelReport m;
  energy_from_json(j, src, m);  // available, reason, power model, domains, source
  EnergyReport e = m.energy;
  if (!e.available) return e;
  const json& en = j.at("energy");
  const std::string where = src + ": field 'energy";
  power_display_from_json(en.at("power_model"), e.power);
  e.max_slowdown = number_at(en, "max_slowdown_pct", where) / 100;
  e.baseline = text_at(en, "baseline", where);
  for (size_t i = 0; i < en.at("points").size(); ++i)
    e.points.push_back(point_from_json(en.at("points")[i], where + ".points[" + std::to_string(i) + "]"));
  const json& d = en.contains("decisions") ? en.at("decisions") : json();
  const std::pair<const char*, EnergyDecision*> all[] = {
      {"energy_optimal", &e.energy_optimal}, {"within_slowdown", &e.within_slowdown}, {"edp", &e.edp}, {"ed2p", &e.ed2p}};
  for (const auto& [key, out] : all)
    *out = decision_from_json(d.is_object() && d.contains(key) ? d.at(key) : json(), e.points,
                              where + ".decisions." + key);
  e.sentence = text_at(en, "sentence", where);
  e.notes = texts_at(en, "notes");
  return e;
}

json energy_to_json(const EnergyReport& e) {
  if (!e.available) return {{"available", false}, {"reason", e.reason}};
  return {{"available", true},
          {"domains", e.domains},
          {"domains_note", e.domains_note},
          {"source", e.source},
          {"nodes_per_job", e.nodes_per_job},
          {"max_slowdown_pct", 100 * e.max_slowdown},
          {"baseline", e.baseline},
          {"power_model", power_json(e.power)},
          {"points", points_json(e)},
          {"decisions",
           {{"energy_optimal", decision_json(e, e.energy_optimal)},
            {"within_slowdown", decision_json(e, e.within_slowdown)},
            {"edp", decision_json(e, e.edp)},
            {"ed2p", decision_json(e, e.ed2p)}}},
          {"sentence", e.sentence},
          {"notes", e.notes}};
}

void energy_from_json(const json& j, const std::string& src, ModelReport& m) {
  if (!j.contains("energy") || j.at("energy").is_null()) return;  // written before issue 31
  const json& e = j.at("energy");
  const std::string where = src + ": field 'energy";
  if (!e.is_object() || !e.contains("available") || !e.at("available").is_boolean())
    throw InputError(where + ".available'", "missing or not true or false");
  m.energy.available = e.at("available").get<bool>();
  if (!m.energy.available) {
    m.energy.reason = e.contains("reason") && e.at("reason").is_string() ? e.at("reason").get<std::string>() : "";
    return;
  }
  m.energy.power = power_from_json(e.contains("power_model") ? e.at("power_model") : json(), where + ".power_model");
  if (e.contains("domains") && e.at("domains").is_string()) m.energy.domains = e.at("domains").get<std::string>();
  if (e.contains("domains_note") && e.at("domains_note").is_string())
    m.energy.domains_note = e.at("domains_note").get<std::string>();
  if (e.contains("source") && e.at("source").is_string()) m.energy.source = e.at("source").get<std::string>();
  if (e.contains("nodes_per_job")) {  // absent before the mix used it: unknown
    const double n = number_at(e, "nodes_per_job", where);
    if (n < 0 || n > 1e7 || n != std::floor(n)) throw InputError(where + ".nodes_per_job'", "must be a node count >= 0");
    m.energy.nodes_per_job = static_cast<int>(n);
  }
  if (e.contains("power_model") && e.at("power_model").contains("interval_method") &&
      e.at("power_model").at("interval_method").is_string())
    m.energy.power.interval_method = e.at("power_model").at("interval_method").get<std::string>();
  if (!e.contains("points") || !e.at("points").is_array()) throw InputError(where + ".points'", "missing or not a list");
  for (size_t i = 0; i < e.at("points").size(); ++i) {
    const json& p = e.at("points")[i];
    const std::string w = where + ".points[" + std::to_string(i) + "]";
    // "measured" is what files written before "swept" call a swept configuration.
    if (!p.is_object() || (p.value("source", "") != "swept" && p.value("source", "") != "measured")) continue;
    for (Point& x : m.points)
      if (p.contains("label") && p.at("label") == x.label) {
        x.energy_j = number_at(p, "energy_j", w);
        x.power_reps_w = {number_at(p, "power_w", w)};
        if (p.contains("uncore_ghz") && !p.at("uncore_ghz").is_null()) x.uncore_ghz = number_at(p, "uncore_ghz", w);
      }
  }
}

}  // namespace hpcsens::model
