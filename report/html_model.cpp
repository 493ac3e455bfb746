// The HTML page of a sensitivity model (McCalpin's pictures): each term's time per
// configuration stacked next to the observed time and its spread, observed versus modelled with
// the slope and 1:1 lines, residuals against each rate, overlap bounds per term, the verdict and
// warnings in words, and per-rank shares.
#include <fmt/core.h>

#include <algorithm>

#include "report/html_page.h"
#include "report/html_report.h"
#include "report/html_sections.h"
#include "report/json_access.h"

namespace hpcsens::report {
namespace {

using html::json;
namespace ja = json_access;

struct Point {
  std::string label;
  double cpu_ghz, mem_gbs, lat_ns, observed, min_s, max_s, predicted;
  double net_latency_us = 0, net_ns_per_byte = 0;  // models with network terms
  json error;
};

std::vector<Point> points_of(const json& model, const std::string& file) {
  std::vector<Point> out;
  const json& pts = ja::array(model, "points", file, "");
  for (std::size_t i = 0; i < pts.size(); ++i) {
    const std::string where = fmt::format("points[{}]", i);
    const json& p = pts[i];
    Point q;
    q.label = ja::text(p, "label", where);
    // One-rate designs (cpu+fixed, mem+fixed) may leave the other rate out: 0 = not given.
    q.cpu_ghz = p.contains("cpu_ghz") ? ja::number(p, "cpu_ghz", file, where) : 0;
    q.mem_gbs = p.contains("mem_gbs") ? ja::number(p, "mem_gbs", file, where) : 0;
    q.lat_ns = p.contains("lat_ns") && p["lat_ns"].is_number() ? p["lat_ns"].get<double>() : 0;
    if (p.contains("net_latency_us") && p["net_latency_us"].is_number()) q.net_latency_us = p["net_latency_us"];
    if (p.contains("net_ns_per_byte") && p["net_ns_per_byte"].is_number()) q.net_ns_per_byte = p["net_ns_per_byte"];
    q.observed = ja::number(p, "observed_s", file, where);
    q.min_s = p.contains("min_s") && p["min_s"].is_number() ? p["min_s"].get<double>() : q.observed;
    q.max_s = p.contains("max_s") && p["max_s"].is_number() ? p["max_s"].get<double>() : q.observed;
    q.predicted = ja::number(p, "predicted_s", file, where);
    q.error = ja::maybe(p, "error");
    out.push_back(q);
  }
  return out;
}

// Exposed time of a term at one configuration: work over the term's rate.
double term_time(const std::string& name, double work, const Point& p) {
  if (name == "cpu") return p.cpu_ghz > 0 ? work / p.cpu_ghz : 0.0;
  if (name == "mem") return p.mem_gbs > 0 ? work / p.mem_gbs : 0.0;
  if (name == "lat") return work * p.lat_ns;
  if (name == "net_lat") return work * p.net_latency_us;  // M messages x us
  if (name == "net_bw") return work * p.net_ns_per_byte;  // GB x ns per byte
  return work;  // io, fixed: seconds that no rate changes
}

json verdict_section(const json& model) {
  json s = html::section("Verdict, reasons and fit diagnostics");
  const std::string verdict = ja::text(model, "verdict");
  // The verdict line is drawn coloured by its word (html_static: class verdict-<word>), first in the section.
  s["verdict"] = {{"word", verdict.empty() ? "none" : verdict},
                  {"text", verdict.empty() ? "This model carries no verdict (written by an older hpcsens fit); judge "
                                             "it from the slope, the errors and the warnings below."
                                           : "Verdict: " + verdict + (verdict == "ok" ? " (the model can be used for "
                                                                                        "projections)" : "")}};
  if (model.contains("verdict_reasons") && model["verdict_reasons"].is_array())
    for (const auto& r : model["verdict_reasons"]) if (r.is_string()) s["text"].push_back("Reason: " + r.get<std::string>());
  if (!ja::text(model, "sensitivity").empty()) s["text"].push_back("Sensitivity: " + ja::text(model, "sensitivity"));
  if (model.contains("warnings") && model["warnings"].is_array())
    for (const auto& w : model["warnings"]) if (w.is_string()) s["warnings"].push_back(w.get<std::string>());
  Table t;
  t.title = "Fit diagnostics (errors are percent of the observed time)";
  t.header = {"measure", "value"};
  t.numeric = {false, true};
  const json d = model.value("diagnostics", json::object());
  auto pct = [&](const char* k) { return d.contains(k) && d[k].is_number() ? fmt::format("{:.3f} %", 100 * d[k].get<double>()) : "-"; };
  auto val = [&](const char* k) { return d.contains(k) && d[k].is_number() ? fmt::format("{:.5g}", d[k].get<double>()) : "-"; };
  t.rows = {{"model", ja::text(model, "model")}, {"mean absolute error (MAPE)", pct("mape")},
            {"largest error", pct("max_abs_err")}, {"leave-one-out MAPE", pct("loocv_mape")},
            {"slope, observed vs modelled (1 is ideal)", val("slope")}, {"intercept [s]", val("intercept")},
            {"R²", val("r2")}, {"condition number", val("condition_number")}};
  s["tables"].push_back(html::table_json(t));
  return s;
}

json stacked_section(const json& model, const std::vector<Point>& pts, const std::string& file) {
  json s = html::section("Time per configuration: model terms next to the observed time");
  const json& terms = ja::array(model, "terms", file, "");
  std::vector<std::string> labels;
  for (const auto& p : pts) labels.push_back(p.label);
  std::vector<json> series;
  for (std::size_t k = 0; k < terms.size(); ++k) {
    const std::string name = ja::text(terms[k], "name", "?");
    const double work = ja::number(terms[k], "work", file, fmt::format("terms[{}]", k));
    json times = json::array();
    for (const auto& p : pts) times.push_back(term_time(name, work, p));
    series.push_back(html::series("T_" + name + " (model)", times, {{"stack", "model"}, {"color", k}}));
  }
  json observed = json::array(), spread = json::array();
  for (const auto& p : pts) observed.push_back(p.observed), spread.push_back(json::array({p.min_s, p.max_s}));
  series.push_back(html::series("observed (median)", observed, {{"stack", "observed"}, {"color", 9}}));
  series.push_back(html::series("run spread (min to max)", spread, {{"stack", "spread"}, {"color", 3}, {"thin", true}}));
  json chart = html::bar_chart("Model terms per configuration vs observed time", "configuration", "time [s]",
                               labels, series, true);
  chart["note"] = "Left bar: the fitted terms' exposed times (work / rate) stacked; middle: the observed median; "
                  "right: the spread of repeated runs.";
  chart["height"] = 380;
  s["charts"].push_back(chart);
  return s;
}

json fit_quality_section(const json& model, const std::vector<Point>& pts) {
  json s = html::section("Observed versus modelled, and residuals");
  json obs = json::array();
  double lo = 1e300, hi = 0;
  for (const auto& p : pts) {
    obs.push_back({{"x", p.predicted}, {"y", p.observed}, {"label", p.label}});
    lo = std::min({lo, p.predicted, p.observed}), hi = std::max({hi, p.predicted, p.observed});
  }
  const json d = model.value("diagnostics", json::object());
  std::vector<json> series = {html::series("configurations", obs),
                              html::series("1:1 line", json::array({{{"x", lo}, {"y", lo}}, {{"x", hi}, {"y", hi}}}),
                                           {{"kind", "line"}, {"dash", true}, {"color", 7}})};
  if (d.contains("slope") && d["slope"].is_number() && d.contains("intercept") && d["intercept"].is_number()) {
    const double m = d["slope"].get<double>(), b = d["intercept"].get<double>();
    series.push_back(html::series(fmt::format("fitted slope line ({:.4f} x + {:.3g} s)", m, b),
                                  json::array({{{"x", lo}, {"y", m * lo + b}}, {{"x", hi}, {"y", m * hi + b}}}),
                                  {{"kind", "line"}, {"color", 3}}));
  }
  s["charts"].push_back(html::xy_chart("Observed vs modelled time", "modelled time [s]", "observed time [s]", series));
  // Residuals against a rate the sweep did not vary would be one column of dots: left out.
  auto residuals = [&](const char* rate, const char* label, auto get) {
    const bool varied = std::any_of(pts.begin(), pts.end(), [&](const Point& p) { return get(p) != get(pts.front()); });
    if (pts.empty() || !varied) return;
    json r = json::array();
    for (const auto& p : pts)
      if (p.error.is_number()) r.push_back({{"x", get(p)}, {"y", 100 * p.error.get<double>()}, {"label", p.label}});
    s["charts"].push_back(html::xy_chart(std::string("Residuals against ") + rate, label,
                                         "error (modelled - observed) / observed [%]", {html::series("configurations", r)}));
  };
  residuals("the CPU rate", "CPU rate R_cpu [GHz]", [](const Point& p) { return p.cpu_ghz; });
  residuals("the memory rate", "memory bandwidth R_mem [GB/s]", [](const Point& p) { return p.mem_gbs; });
  residuals("memory latency", "memory latency [ns]", [](const Point& p) { return p.lat_ns; });
  return s;
}

json bounds_section(const json& model, const std::string& file) {
  json s = html::section("Overlap bounds per term");
  s["text"].push_back("The fitted terms are exposed (non-overlapped) times. If the components may overlap anywhere "
                      "between not at all and fully, each term's share of the baseline time lies in the range drawn "
                      "(overlap LP, GLPK). A wide range means the sweep did not vary that rate far enough.");
  const json& terms = ja::array(model, "terms", file, "");
  std::vector<std::string> labels;
  json range = json::array(), fit = json::array();
  Table t;
  t.title = "Terms";
  t.header = {"term", "unit", "work", "stderr", "bounds (overlap LP)", "closed-form upper", "share of baseline"};
  t.numeric = {false, false, true, true, true, true, true};
  for (std::size_t k = 0; k < terms.size(); ++k) {
    const json& term = terms[k];
    const std::string name = ja::text(term, "name", "?");
    labels.push_back(name);
    const json share = term.value("share", json::object());
    const json fs = ja::maybe(share, "fit"), lo = ja::maybe(share, "lo"), hi = ja::maybe(share, "hi");
    range.push_back(lo.is_number() && hi.is_number() ? json::array({100 * lo.get<double>(), 100 * hi.get<double>()})
                                                      : json(nullptr));
    fit.push_back(fs.is_number() ? json(100 * fs.get<double>()) : json(nullptr));
    const json b = term.value("bounds", json::array());
    auto g = [](const json& v) { return v.is_number() ? fmt::format("{:.5g}", v.get<double>()) : std::string("-"); };
    t.rows.push_back({name, ja::text(term, "unit"), g(ja::maybe(term, "work")), g(ja::maybe(term, "stderr")),
                      b.is_array() && b.size() == 2 ? g(b[0]) + " to " + g(b[1]) : "-",
                      g(ja::maybe(term, "closed_form_upper")), fs.is_number() ? fmt::format("{:.1f} %", 100 * fs.get<double>()) : "-"});
  }
  s["charts"].push_back(html::bar_chart("Share of the baseline time per term: fitted and overlap range", "term",
                                        "share of baseline time [%]", labels,
                                        {html::series("overlap range", range), html::series("fitted (no overlap)", fit, {{"color", 3}})},
                                        false, true));
  s["tables"].push_back(html::table_json(t));
  return s;
}

}  // namespace

json model_sections(const json& model, const std::string& file) {
  const auto pts = points_of(model, file);
  json sections = json::array({verdict_section(model), stacked_section(model, pts, file),
                               fit_quality_section(model, pts), bounds_section(model, file)});
  if (model.contains("per_rank") && model["per_rank"].is_object()) sections.push_back(per_rank_section(model, file));
  return sections;
}

std::string formula_note(const json& model) {
  return "Model " + ja::text(model, "model", "?") + ": " + model_formula(ja::text(model, "model")) +
         " (McCalpin); works fitted by non-negative least squares over the sweep's configurations.";
}

json model_page(const json& model, const std::string& file) {
  return {{"title", "hpcsens model: " + ja::text(model, "model", "?") + " (" + file + ")"},
          {"emulated", model.value("emulated", false)},
          {"answer", html::answer(model_answer(model))},
          {"notes", {formula_note(model)}},
          {"sections", model_sections(model, file)}};
}

}  // namespace hpcsens::report
