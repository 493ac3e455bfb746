// The HTML page of a sensitivity model (McCalpin's pictures): each term's time per
// configuration stacked next to the observed time and its spread, observed versus modelled with
// the slope and 1:1 lines, residuals against each rate the sweep varied, overlap bounds per term,
// the verdict and warnings in words, and per-rank shares. Drawn from the model's answer object
// (report/model_view.h), so the page shows what the text and JSON forms show.
#include <fmt/core.h>

#include <algorithm>

#include "report/html_page.h"
#include "report/html_report.h"
#include "report/html_sections.h"
#include "report/json_access.h"
#include "report/model_view.h"

namespace hpcsens::report {
namespace {

using html::json;
namespace ja = json_access;

struct Point {
  std::string label;
  double observed, min_s, max_s, predicted;
  json raw;  // the model's point, for the rates a term reads
};

std::vector<Point> points_of(const json& model, const std::string& file) {
  std::vector<Point> out;
  const json& pts = ja::array(model, "points", file, "");
  for (std::size_t i = 0; i < pts.size(); ++i) {
    const std::string where = fmt::format("points[{}]", i);
    const json& p = pts[i];
    Point q;
    q.label = ja::text(p, "label", where);
    q.observed = ja::number(p, "observed_s", file, where);
    q.min_s = p.contains("min_s") && p["min_s"].is_number() ? p["min_s"].get<double>() : q.observed;
    q.max_s = p.contains("max_s") && p["max_s"].is_number() ? p["max_s"].get<double>() : q.observed;
    q.predicted = ja::number(p, "predicted_s", file, where);
    q.raw = p;
    out.push_back(q);
  }
  return out;
}

// Exposed time of a term at one configuration, from the term registry: work / rate for a term
// whose basis divides by its rate, work x rate for the others, the work itself for constant time.
double term_time(const std::string& name, double work, const json& point) {
  for (const auto& t : model::all_terms()) {
    if (name != t.name) continue;
    if (t.rate == model::Rate::none) return work;
    const json v = ja::maybe(point, model::rate_name(t.rate));
    if (!v.is_number()) return 0.0;
    return t.divides ? (v.get<double>() > 0 ? work / v.get<double>() : 0.0) : work * v.get<double>();
  }
  return work;  // a term this build does not know: constant time
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
  for (const auto& n : fit_notes(model)) s["text"].push_back(n);
  if (model.contains("warnings") && model["warnings"].is_array())
    for (const auto& w : model["warnings"]) if (w.is_string()) s["warnings"].push_back(w.get<std::string>());
  s["tables"].push_back(html::table_json(diagnostics_table(model)));
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
    for (const auto& p : pts) times.push_back(term_time(name, work, p.raw));
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

json fit_quality_section(const json& view, const std::vector<Point>& pts) {
  json s = html::section("Observed versus modelled, and residuals");
  json obs = json::array();
  double lo = 1e300, hi = 0;
  for (const auto& p : pts) {
    obs.push_back({{"x", p.predicted}, {"y", p.observed}, {"label", p.label}});
    lo = std::min({lo, p.predicted, p.observed}), hi = std::max({hi, p.predicted, p.observed});
  }
  const json d = view["model"].value("diagnostics", json::object());
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
  // One panel per rate the sweep varied; a held rate would be one column of dots.
  for (const auto& r : view.value("residuals", json::array())) {
    json pts_json = json::array();
    double lo = 1e300, hi = 0;
    for (const auto& p : r["points"]) {
      pts_json.push_back({{"x", p["x"]}, {"y", p["error_pct"]}, {"label", p["label"]}});
      lo = std::min(lo, p["x"].get<double>()), hi = std::max(hi, p["x"].get<double>());
    }
    json chart = html::xy_chart("Residuals against the " + ja::text(r, "words"),
                                ja::text(r, "words") + " [" + ja::text(r, "unit") + "]",
                                "error (modelled - observed) / observed [%]", {html::series("configurations", pts_json)});
    if (spans_decades(lo, hi)) chart["logx"] = true;
    s["charts"].push_back(chart);
  }
  s["tables"].push_back(html::table_json(configurations_table(view)));
  return s;
}

json bounds_section(const json& model, const std::string& file) {
  json s = html::section("Overlap bounds per term");
  s["text"].push_back("The fitted terms are exposed (non-overlapped) times. If the components may overlap anywhere "
                      "between not at all and fully, each term's share of the baseline time lies in the range drawn "
                      "(overlap LP, GLPK). A wide range means the sweep did not vary that rate far enough.");
  std::vector<std::string> labels;
  json range = json::array(), fit = json::array();
  for (const auto& term : ja::array(model, "terms", file, "")) {
    labels.push_back(ja::text(term, "name", "?"));
    const json share = term.value("share", json::object());
    const json fs = ja::maybe(share, "fit"), lo = ja::maybe(share, "lo"), hi = ja::maybe(share, "hi");
    range.push_back(lo.is_number() && hi.is_number() ? json::array({100 * lo.get<double>(), 100 * hi.get<double>()})
                                                      : json(nullptr));
    fit.push_back(fs.is_number() ? json(100 * fs.get<double>()) : json(nullptr));
  }
  s["charts"].push_back(html::bar_chart("Share of the baseline time per term: fitted and overlap range", "term",
                                        "share of baseline time [%]", labels,
                                        {html::series("overlap range", range), html::series("fitted (no overlap)", fit, {{"color", 3}})},
                                        false, true));
  s["tables"].push_back(html::table_json(terms_table(model, file)));
  return s;
}

}  // namespace

json model_sections(const json& view) {
  const json& model = view["model"];
  const std::string file = ja::text(view, "source");
  const auto pts = points_of(model, file);
  json sections = json::array({verdict_section(model), stacked_section(model, pts, file),
                               fit_quality_section(view, pts), bounds_section(model, file)});
  if (model.contains("per_rank") && model["per_rank"].is_object()) sections.push_back(per_rank_section(model, file));
  // Energy right after the verdict: it is an answer, the McCalpin pictures are its evidence.
  if (json energy = energy_trade_off_section(model, file); energy.is_object()) sections.insert(sections.begin() + 1, std::move(energy));
  return sections;
}

std::string formula_note(const json& model) {
  return "Model " + ja::text(model, "model", "?") + ": " + model_formula(ja::text(model, "model")) +
         " (McCalpin); works fitted by non-negative least squares over the sweep's configurations.";
}

json model_page(const json& model, const std::string& file) {
  const json view = model_view(model, file);
  json notes = {formula_note(model)};
  return {{"title", view["title"]}, {"emulated", view["emulated"]}, {"answer", view["answer"]},
          {"notes", notes}, {"sections", model_sections(view)}};
}

}  // namespace hpcsens::report
