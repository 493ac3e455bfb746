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

}  // namespace

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
