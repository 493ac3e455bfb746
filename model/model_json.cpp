#include "model/model_json.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <tuple>

#include "common/errors.h"
#include "common/json_input.h"
#include "common/safe_file.h"
#include "model/energy_json.h"
#include "model/number_format.h"

namespace hpcsens::model {
namespace {

using nlohmann::json;

json point_json(const Point& p) {
  // mem_gbs null: the sweep measured none (calibration.stream off).
  json j = {{"label", p.label}, {"cpu_ghz", p.cpu_ghz}, {"mem_gbs", json_number(p.mem_gbs)}};
  if (p.lat_ns) j["lat_ns"] = *p.lat_ns;
  if (p.net_latency_us) j["net_latency_us"] = *p.net_latency_us;
  if (p.net_ns_per_byte) j["net_ns_per_byte"] = *p.net_ns_per_byte;
  return j;
}

// The fit chose its baseline with the knob settings of the records, which the model file does not
// keep: the saved baseline's point (by label and rates), else one chosen from the rates.
size_t saved_baseline(const json& j, const std::vector<Point>& points) {
  if (j.contains("baseline") && j.at("baseline").is_object()) {
    const json& b = j.at("baseline");
    const auto same = [&](const char* key, double v) {
      const json x = b.contains(key) ? b.at(key) : json();
      return x.is_number() ? x.get<double>() == v : x.is_null() && std::isnan(v);
    };
    for (size_t i = 0; i < points.size(); ++i)
      if (b.contains("label") && b.at("label") == points[i].label && same("cpu_ghz", points[i].cpu_ghz) &&
          same("mem_gbs", points[i].mem_gbs))
        return i;
  }
  return pick_baseline(points);
}

// `where` is "file" or "file: points[3]"; the message names "file: field 'points[3].key'".
double need_number(const json& j, const std::string& key, const std::string& where, bool positive) {
  const size_t colon = where.find(": ");
  const std::string file = colon == std::string::npos ? where : where.substr(0, colon);
  const std::string field = (colon == std::string::npos ? "" : where.substr(colon + 2) + ".") + key;
  const std::string at = file + ": field '" + field + "'";
  if (!j.is_object() || !j.contains(key)) throw InputError(at, "missing");
  const auto& v = j.at(key);
  if (!v.is_number()) throw InputError(at, "not a number");
  const double d = v.get<double>();
  if (!std::isfinite(d) || (positive && d <= 0))
    throw InputError(at, positive ? "must be a finite number greater than zero" : "not finite");
  return d;
}

bool optional_bool(const json& j, const char* key, bool fallback, const std::string& src) {
  if (!j.contains(key) || j.at(key).is_null()) return fallback;
  if (!j.at(key).is_boolean()) throw InputError(src + ": field '" + key + "'", "not true or false");
  return j.at(key).get<bool>();
}

std::string optional_string(const json& j, const char* key, const std::string& src) {
  if (!j.contains(key) || j.at(key).is_null()) return "";
  if (!j.at(key).is_string()) throw InputError(src + ": field '" + key + "'", "not a string");
  return j.at(key).get<std::string>();
}

std::vector<std::string> optional_strings(const json& j, const char* key, const std::string& src) {
  std::vector<std::string> out;
  if (!j.contains(key) || j.at(key).is_null()) return out;
  if (!j.at(key).is_array()) throw InputError(src + ": field '" + key + "'", "not a list of strings");
  for (size_t i = 0; i < j.at(key).size(); ++i) {
    if (!j.at(key)[i].is_string())
      throw InputError(src + ": field '" + key + "[" + std::to_string(i) + "]'", "not a string");
    out.push_back(j.at(key)[i].get<std::string>());
  }
  return out;
}

json elasticities_json(const std::vector<Elasticity>& es) {
  json out = json::array();
  for (const auto& e : es)
    out.push_back({{"rate", rate_name(e.rate)},
                   {"elasticity", e.elasticity},
                   {"low", e.low},
                   {"high", e.high},
                   {"saving_10pct", e.saving_10},
                   {"saving_10pct_low", e.saving_10_low},
                   {"saving_10pct_high", e.saving_10_high},
                   {"unreliable", e.unreliable},
                   {"verdict", e.verdict},
                   {"verdict_reasons", e.verdict_reasons},
                   {"covariance_low", json_number(e.cov_low)},
                   {"covariance_high", json_number(e.cov_high)}});
  return out;
}

json rates_json(const std::vector<RateVariation>& rates) {
  json out = json::array();
  for (const auto& v : rates)
    out.push_back({{"rate", rate_name(v.rate)},
                   {"varied", v.varied},
                   {"lo", json_number(v.lo)},
                   {"hi", json_number(v.hi)},
                   {"median", json_number(v.median)},
                   {"range", json_number(v.range)},
                   {"noise", json_number(v.noise)},
                   {"noise_from", v.noise_from},
                   {"threshold", json_number(v.threshold)},
                   {"note", held_constant_note(v)}});
  return out;
}

// An np x np matrix of finite numbers, errors naming the field.
Matrix square_matrix(const json& cov, size_t np, const std::string& src, const std::string& key) {
  if (!cov.is_array() || cov.size() != np) throw InputError(src + ": field '" + key + "'", "expected a square matrix");
  Matrix m;
  for (size_t a = 0; a < np; ++a) {
    if (!cov[a].is_array() || cov[a].size() != np)
      throw InputError(src + ": field '" + key + "[" + std::to_string(a) + "]'",
                       "expected a row of " + std::to_string(np) + " numbers");
    std::vector<double> row;
    for (size_t b = 0; b < np; ++b) {
      const auto& v = cov[a][b];
      if (!v.is_number() || !std::isfinite(v.get<double>()))
        throw InputError(src + ": field '" + key + "[" + std::to_string(a) + "][" + std::to_string(b) + "]'",
                         "not a finite number");
      row.push_back(v.get<double>());
    }
    m.push_back(row);
  }
  return m;
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
                     {"share", {{"fit", t.share}, {"lo", t.share_lo}, {"hi", t.share_hi}}},
                     {"unreliable", t.unreliable.empty() ? json(nullptr) : json(t.unreliable)},
                     {"jackknife",
                      {{"stderr", json_number(t.jk_stderr)},
                       {"work_lo", json_number(t.work_lo)},
                       {"work_hi", json_number(t.work_hi)},
                       {"share_lo", json_number(t.share_jk_lo)},
                       {"share_hi", json_number(t.share_jk_hi)}}}});
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
  if (!rep.baseline_reason.empty()) baseline["reason"] = rep.baseline_reason;
  json out = {
      {"schema", kModelSchema},
      {"model", rep.spec.name()},
      {"app", rep.app},
      {"emulated", rep.emulated},
      {"verdict", rep.verdict.word},
      {"verdict_reasons", rep.verdict.reasons},
      {"verdict_covers", rep.verdict.covers},
      {"notes", rep.notes},
      {"noise", std::isfinite(rep.noise) ? json(rep.noise) : json(nullptr)},
      {"node_effects", node_effects_json(rep.node_effects)},
      {"rate_variation", rates_json(rep.rates)},
      {"elasticities", elasticities_json(rep.elasticities)},
      {"sensitivity", rep.sensitivity},
      {"robust", robust_name(rep.robust)},
      {"terms", terms},
      {"overlap", rep.overlap_w ? json{{"w", *rep.overlap_w}, {"stderr", *rep.overlap_w_stderr}} : json(nullptr)},
      {"parameters", rep.params},
      {"covariance", rep.covariance},
      {"stderr_method", rep.stderr_method},
      {"interval_method", rep.interval_method},
      {"jackknife_covariance", rep.jackknife_covariance},
      {"jackknife_n", rep.jackknife_n},
      {"loocv_method", rep.loo_closed_form ? "closed form" : "refits"},
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
  // A model of one named region (hpcsens fit --region): its time is the region's, not the job's.
  if (!rep.region.empty()) out["region"] = rep.region;
  out["energy"] = energy_to_json(rep.energy);
  if (!rep.candidates.empty()) {
    json c = json::array();
    for (const auto& s : rep.candidates) {
      json form = json::array();
      for (const auto& x : s.extra) form.push_back({{"name", x.name}, {"value", x.value}, {"stderr", x.stderr_}});
      c.push_back({{"model", s.model},
                   {"identifiable", s.identifiable},
                   {"mape", s.mape},
                   {"loocv_mape", s.loocv_mape},
                   {"significant", s.significant()},
                   {"form_parameters", form},
                   {"loocv_se", json_number(s.loocv_se)},
                   {"note", s.note}});
    }
    out["selection"] = {{"reason", rep.selection_reason}, {"candidates", c}};
  }
  if (rep.has_per_rank) {
    json ranks = json::array(), groups = json::array();
    // A rank's elasticity to a rate is minus its share of time in the term dividing by it.
    // A rate the model has no term for (not varied by the sweep) gets null, not a share of 0.
    const bool cpu = rep.spec.has(Term::cpu), mem = rep.spec.has(Term::mem);
    auto share = [](bool modelled, double v) { return modelled ? json(v) : json(nullptr); };
    for (const auto& r : rep.per_rank)
      ranks.push_back({{"rank", r.rank},
                       {"ok", r.ok},
                       {"cpu", share(cpu, r.cpu)},
                       {"mem", share(mem, r.mem)},
                       {"fixed", r.fixed},
                       {"error", r.error},
                       {"elasticity", {{"cpu_ghz", share(cpu, -r.cpu)}, {"mem_gbs", share(mem, -r.mem)}}}});
    for (const auto& g : rep.groups)
      groups.push_back({{"cpu", share(cpu, g.cpu)},
                        {"mem", share(mem, g.mem)},
                        {"fixed", g.fixed},
                        {"count", g.ranks.size()},
                        {"ranks", format_rank_list(g.ranks)},
                        {"sensitivity", share_sentence(rep.spec, g.cpu, g.mem)}});
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
  if (!j.contains("model") || !j.at("model").is_string())
    throw InputError(src + ": field 'model'", "missing or not a string");
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
  m.covariance = square_matrix(j.contains("covariance") ? j.at("covariance") : json(), np, src, "covariance");
  if (j.contains("jackknife_covariance") && !j.at("jackknife_covariance").is_null() &&
      !j.at("jackknife_covariance").empty()) {
    m.jackknife_covariance = square_matrix(j.at("jackknife_covariance"), np, src, "jackknife_covariance");
    m.jackknife_n = static_cast<int>(need_number(j, "jackknife_n", src, true));
    if (m.jackknife_n < 3) throw InputError(src + ": field 'jackknife_n'", "must be at least 3");
    m.interval_method = "jackknife";
  }
  if (!j.contains("points") || !j.at("points").is_array() || j.at("points").empty())
    throw InputError(src + ": field 'points'", "missing or empty");
  for (size_t i = 0; i < j.at("points").size(); ++i) {
    const auto& pj = j.at("points")[i];
    const std::string w = src + ": points[" + std::to_string(i) + "]";
    if (!pj.is_object()) throw InputError(src + ": field 'points[" + std::to_string(i) + "]'", "not an object");
    Point p;
    p.label = optional_string(pj, "label", w);
    p.cpu_ghz = need_number(pj, "cpu_ghz", w, true);
    // null: the sweep measured no memory bandwidth (a model without mem).
    p.mem_gbs = pj.contains("mem_gbs") && pj.at("mem_gbs").is_null() ? NAN : need_number(pj, "mem_gbs", w, true);
    if (pj.contains("lat_ns") && !pj.at("lat_ns").is_null()) p.lat_ns = need_number(pj, "lat_ns", w, true);
    for (auto [key, out, range] : {std::tuple{"net_latency_us", &p.net_latency_us, kNetLatencyUsRange},
                                   std::tuple{"net_ns_per_byte", &p.net_ns_per_byte, kNetNsPerByteRange}})
      if (pj.contains(key) && !pj.at(key).is_null()) {
        *out = need_number(pj, key, w, false);
        check_plausible(**out, range, w + "." + key);
      }
    p.time_s = need_number(pj, "observed_s", w, true);
    check_plausible(p.cpu_ghz, kCpuGhzRange, w + ".cpu_ghz");
    if (std::isfinite(p.mem_gbs)) check_plausible(p.mem_gbs, kMemGbsRange, w + ".mem_gbs");
    check_plausible(p.time_s, kTimeSRange, w + ".observed_s");
    m.points.push_back(p);
    m.predicted.push_back(model_time(m.spec, m.params, p));
  }
  m.baseline = saved_baseline(j, m.points);
  m.emulated = optional_bool(j, "emulated", false, src);
  m.bounds.slack = kDefaultBoundsSlack;
  if (j.contains("bounds_slack") && !j.at("bounds_slack").is_null()) {
    const double sl = need_number(j, "bounds_slack", src, false);
    if (sl < 0 || sl > 0.5) throw InputError(src + ": field 'bounds_slack'", "must be from 0 to 0.5");
    m.bounds.slack = sl;
  }
  m.bounds.feasible = optional_bool(j, "bounds_feasible", true, src);
  m.app = optional_string(j, "app", src);
  // Models written before verdicts existed carry none: say so instead of pretending "ok".
  const std::string v = optional_string(j, "verdict", src);
  if (!v.empty() && v != "ok" && v != "caution" && v != "unreliable")
    throw InputError(src + ": field 'verdict'", "'" + v + "' is not ok, caution or unreliable");
  m.verdict.word = v.empty() ? "caution" : v;
  m.verdict.reasons = optional_strings(j, "verdict_reasons", src);
  if (v.empty()) m.verdict.reasons.push_back("the model file has no verdict (written by an older hpcsens)");
  m.notes = optional_strings(j, "notes", src);
  // The model error that widens extrapolated predictions (absent in older files: the floor applies).
  if (j.contains("diagnostics") && j.at("diagnostics").is_object()) {
    const json& d = j.at("diagnostics");
    if (d.contains("loocv_mape") && d.at("loocv_mape").is_number()) m.diag.loocv_mape = d.at("loocv_mape").get<double>();
    if (!std::isfinite(m.diag.loocv_mape) || m.diag.loocv_mape < 0)
      throw InputError(src + ": field 'diagnostics.loocv_mape'", "must be a finite number of at least 0");
  }
  energy_from_json(j, src, m);
  return m;
}

ModelReport load_model(const std::string& path) {
  const std::string text = safe_file::read_input_file(path, kMaxInputBytes);
  // Strict and bounded (depth, string and number length: common/json_input.h).
  return model_from_json(json_input::parse_strict(text, path), path);
}

}  // namespace hpcsens::model
