#include "model/model_json.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>

#include "common/errors.h"

namespace hpcsens::model {
namespace {

using nlohmann::json;

json point_json(const Point& p) {
  json j = {{"label", p.label}, {"cpu_ghz", p.cpu_ghz}, {"mem_gbs", p.mem_gbs}};
  if (p.lat_ns) j["lat_ns"] = *p.lat_ns;
  return j;
}

double need_number(const json& j, const std::string& key, const std::string& where, bool positive) {
  if (!j.is_object() || !j.contains(key)) throw InputError(where, "missing field '" + key + "'");
  const auto& v = j.at(key);
  if (!v.is_number()) throw InputError(where + "." + key, "not a number");
  const double d = v.get<double>();
  if (!std::isfinite(d) || (positive && d <= 0))
    throw InputError(where + "." + key, positive ? "must be a finite number greater than zero" : "not finite");
  return d;
}

}  // namespace

json to_json(const ModelReport& rep) {
  json terms = json::array();
  for (const auto& t : rep.terms)
    terms.push_back({{"name", term_name(t.term)},
                     {"unit", term_unit(t.term)},
                     {"work", t.work},
                     {"stderr", t.stderr_},
                     {"bounds", {t.bounds.lo, t.bounds.hi}},
                     {"closed_form_upper", t.bounds.closed_form_hi},
                     {"share", {{"fit", t.share}, {"lo", t.share_lo}, {"hi", t.share_hi}}}});
  json trends = json::array();
  for (const auto& t : rep.diag.trends)
    trends.push_back({{"rate", t.rate}, {"r", t.r}, {"slope", t.slope}, {"significant", t.significant}});
  json points = json::array();
  for (size_t j = 0; j < rep.points.size(); ++j) {
    const auto& p = rep.points[j];
    json pj = point_json(p);
    pj["observed_s"] = p.time_s;
    pj["min_s"] = p.min_s;
    pj["max_s"] = p.max_s;
    pj["reps"] = p.reps;
    pj["predicted_s"] = rep.predicted[j];
    pj["error"] = rep.diag.rel_err[j];
    pj["loocv_error"] = rep.loocv_err[j];
    points.push_back(pj);
  }
  json baseline = point_json(rep.points[rep.baseline]);
  baseline["time_s"] = rep.points[rep.baseline].time_s;
  json out = {
      {"schema", kModelSchema},
      {"model", rep.spec.name()},
      {"emulated", rep.emulated},
      {"robust", robust_name(rep.robust)},
      {"terms", terms},
      {"overlap", rep.overlap_w ? json{{"w", *rep.overlap_w}, {"stderr", *rep.overlap_w_stderr}} : json(nullptr)},
      {"parameters", rep.params},
      {"covariance", rep.covariance},
      {"stderr_method", rep.stderr_method},
      {"diagnostics",
       {{"mape", rep.diag.mape},
        {"max_abs_err", rep.diag.max_abs_err},
        {"slope", rep.diag.slope},
        {"intercept", rep.diag.intercept},
        {"r2", rep.diag.r2},
        {"loocv_mape", rep.diag.loocv_mape},
        {"condition_number", rep.condition_number},
        {"residual_trends", trends}}},
      {"bounds_feasible", rep.bounds.feasible},
      {"bounds_slack", rep.bounds.slack},
      {"baseline", baseline},
      {"points", points},
      {"warnings", rep.warnings},
      {"sources", rep.sources},
  };
  if (!rep.candidates.empty()) {
    json c = json::array();
    for (const auto& s : rep.candidates)
      c.push_back({{"model", s.model},
                   {"identifiable", s.identifiable},
                   {"mape", s.mape},
                   {"loocv_mape", s.loocv_mape},
                   {"significant", s.significant_extra},
                   {"note", s.note}});
    out["selection"] = {{"reason", rep.selection_reason}, {"candidates", c}};
  }
  if (rep.has_per_rank) {
    json ranks = json::array(), groups = json::array();
    for (const auto& r : rep.per_rank)
      ranks.push_back(
          {{"rank", r.rank}, {"ok", r.ok}, {"cpu", r.cpu}, {"mem", r.mem}, {"fixed", r.fixed}, {"error", r.error}});
    for (const auto& g : rep.groups)
      groups.push_back({{"cpu", g.cpu},
                        {"mem", g.mem},
                        {"fixed", g.fixed},
                        {"count", g.ranks.size()},
                        {"ranks", format_rank_list(g.ranks)}});
    out["per_rank"] = {{"ranks", ranks}, {"groups", groups}};
  } else {
    out["per_rank"] = nullptr;
  }
  return out;
}

ModelReport model_from_json(const json& j, const std::string& src) {
  if (!j.is_object()) throw InputError(src, "not a JSON object");
  if (!j.contains("schema") || j.at("schema") != kModelSchema)
    throw InputError(src + ": field 'schema'", std::string("expected '") + kModelSchema + "'");
  ModelReport m;
  if (!j.contains("model") || !j.at("model").is_string()) throw InputError(src, "missing field 'model'");
  try {
    m.spec = parse_model_spec(j.at("model").get<std::string>());
  } catch (const InputError&) {
    throw InputError(src + ": field 'model'", "unknown model '" + j.at("model").get<std::string>() + "'");
  }
  const size_t np = m.spec.num_params();
  if (!j.contains("parameters") || !j.at("parameters").is_array() || j.at("parameters").size() != np)
    throw InputError(src + ": field 'parameters'", "expected " + std::to_string(np) + " numbers");
  for (size_t i = 0; i < np; ++i) {
    const auto& v = j.at("parameters")[i];
    if (!v.is_number() || !std::isfinite(v.get<double>()))
      throw InputError(src + ": field 'parameters[" + std::to_string(i) + "]'", "not a finite number");
    m.params.push_back(v.get<double>());
  }
  const auto& cov = j.contains("covariance") ? j.at("covariance") : json();
  if (!cov.is_array() || cov.size() != np) throw InputError(src + ": field 'covariance'", "expected a square matrix");
  for (size_t a = 0; a < np; ++a) {
    if (!cov[a].is_array() || cov[a].size() != np)
      throw InputError(src + ": field 'covariance[" + std::to_string(a) + "]'", "expected a row of " +
                                                                                   std::to_string(np) + " numbers");
    std::vector<double> row;
    for (const auto& v : cov[a]) row.push_back(v.is_number() ? v.get<double>() : 0.0);
    m.covariance.push_back(row);
  }
  if (!j.contains("points") || !j.at("points").is_array() || j.at("points").empty())
    throw InputError(src + ": field 'points'", "missing or empty");
  for (size_t i = 0; i < j.at("points").size(); ++i) {
    const auto& pj = j.at("points")[i];
    const std::string w = src + ": points[" + std::to_string(i) + "]";
    Point p;
    p.label = pj.value("label", "");
    p.cpu_ghz = need_number(pj, "cpu_ghz", w, true);
    p.mem_gbs = need_number(pj, "mem_gbs", w, true);
    if (pj.contains("lat_ns") && !pj.at("lat_ns").is_null()) p.lat_ns = need_number(pj, "lat_ns", w, true);
    p.time_s = need_number(pj, "observed_s", w, true);
    m.points.push_back(p);
    m.predicted.push_back(model_time(m.spec, m.params, p));
  }
  m.baseline = pick_baseline(m.points);
  m.emulated = j.value("emulated", false);
  m.bounds.slack = j.contains("bounds_slack") && j.at("bounds_slack").is_number() ? j.at("bounds_slack").get<double>()
                                                                                     : kDefaultBoundsSlack;
  m.bounds.feasible = j.value("bounds_feasible", true);
  return m;
}

ModelReport load_model(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, std::string("cannot read: ") + std::strerror(errno));
  json j;
  try {
    j = json::parse(in);
  } catch (const json::exception& e) {
    throw InputError(path, std::string("not valid JSON (") + e.what() + ")");
  }
  return model_from_json(j, path);
}

}  // namespace hpcsens::model
