// A model's answer object and the tables its page and text forms share.
#include <fmt/core.h>

#include "common/errors.h"
#include "report/html_page.h"
#include "report/json_access.h"
#include "report/model_view.h"

namespace hpcsens::report {
namespace {

using nlohmann::json;
namespace ja = json_access;

std::string view_g(const json& v, const char* f = "{:.5g}") {
  return v.is_number() ? fmt::format(fmt::runtime(f), v.get<double>()) : std::string("-");
}

}  // namespace

json residuals_json(const json& model, const std::vector<RateRole>& roles) {
  json out = json::array();
  for (const RateRole* r : varied_roles(roles)) {
    json pts = json::array();
    for (const auto& p : model.value("points", json::array())) {
      const json x = ja::maybe(p, r->axis->key), e = ja::maybe(p, "error");
      if (x.is_number() && e.is_number())
        pts.push_back({{"label", ja::text(p, "label")}, {"x", r->axis->shown(x.get<double>())},
                       {"error_pct", 100 * e.get<double>()}});
    }
    out.push_back({{"rate", r->axis->key}, {"shown_key", r->axis->shown_key}, {"words", r->axis->words},
                   {"unit", r->axis->unit}, {"points", pts}});
  }
  return out;
}

void require_model_terms(const json& model, const std::string& file) {
  if (!model.contains("terms") || !model["terms"].is_array())
    throw InputError(file, "field 'terms' is missing or not an array: this is not a model written by hpcsens fit; "
                           "write one with 'hpcsens fit SWEEPDIR/records -o MODEL.json'");
}

json model_view(const json& model, const std::string& path) {
  require_model_terms(model, path);
  const auto roles = rate_roles(model);
  return {{"kind", "model"}, {"source", path},
          {"title", "hpcsens model: " + ja::text(model, "model", "?") + " (" + path + ")"},
          {"emulated", model.value("emulated", false)},
          {"answer", html::answer(model_answer(model, roles, {path, ""}))},
          {"rates", roles_json(roles)}, {"residuals", residuals_json(model, roles)}, {"model", model}};
}

Table rates_table(const json& view) {
  Table t;
  t.title = "Rates: what the sweep varied and what it held";
  t.header = {"rate", "unit", "role", "lowest", "highest", "median"};
  t.numeric = {false, false, false, true, true, true};
  for (const auto& r : view.value("rates", json::array()))
    t.rows.push_back({ja::text(r, "words"), ja::text(r, "unit"), r.value("varied", false) ? "varied" : "held",
                      view_g(ja::maybe(r, "lo"), "{:.4g}"), view_g(ja::maybe(r, "hi"), "{:.4g}"), view_g(ja::maybe(r, "median"), "{:.4g}")});
  return t;
}

Table diagnostics_table(const json& model) {
  Table t;
  t.title = "Fit diagnostics (errors are percent of the observed time)";
  t.header = {"measure", "value"};
  t.numeric = {false, true};
  const json d = model.value("diagnostics", json::object());
  auto pct = [&](const char* k) { return d.contains(k) && d[k].is_number() ? fmt::format("{:.3f} %", 100 * d[k].get<double>()) : "-"; };
  auto val = [&](const char* k) { return view_g(ja::maybe(d, k)); };
  t.rows = {{"model", ja::text(model, "model")}, {"mean absolute error (MAPE)", pct("mape")},
            {"largest error", pct("max_abs_err")}, {"leave-one-out MAPE", pct("loocv_mape")},
            {"slope, observed vs modelled (1 is ideal)", val("slope")}, {"intercept [s]", val("intercept")},
            {"R²", val("r2")}, {"condition number", val("condition_number")}};
  return t;
}

Table terms_table(const json& model, const std::string& file) {
  Table t;
  t.title = "Terms";
  t.header = {"term", "unit", "work", "stderr", "bounds (overlap LP)", "closed-form upper", "share of baseline"};
  t.numeric = {false, false, true, true, true, true, true};
  const json& terms = ja::array(model, "terms", file, "");
  for (const auto& term : terms) {
    const json fs = ja::maybe(term.value("share", json::object()), "fit");
    const json b = term.value("bounds", json::array());
    t.rows.push_back({ja::text(term, "name", "?"), ja::text(term, "unit"), view_g(ja::maybe(term, "work")),
                      view_g(ja::maybe(term, "stderr")), b.is_array() && b.size() == 2 ? view_g(b[0]) + " to " + view_g(b[1]) : "-",
                      view_g(ja::maybe(term, "closed_form_upper")),
                      fs.is_number() ? fmt::format("{:.1f} %", 100 * fs.get<double>()) : "-"});
  }
  return t;
}

// Each configuration with the rates the sweep varied, observed and modelled time.
Table configurations_table(const json& view) {
  const json model = view.value("model", json());
  Table t;
  t.title = "Configurations: observed and modelled time";
  t.header = {"configuration"};
  t.numeric = {false};
  std::vector<const RateAxis*> axes;
  for (const auto& r : view.value("rates", json::array()))
    if (r.value("varied", false))
      if (const RateAxis* a = rate_axis(ja::text(r, "rate"))) axes.push_back(a), t.header.push_back(a->title()), t.numeric.push_back(true);
  for (const char* h : {"observed [s]", "modelled [s]", "error [%]"}) t.header.push_back(h), t.numeric.push_back(true);
  if (!model.is_object()) return t;
  for (const auto& p : model.value("points", json::array())) {
    std::vector<std::string> row = {ja::text(p, "label")};
    for (const RateAxis* a : axes) {
      const json x = ja::maybe(p, a->key);
      row.push_back(x.is_number() ? fmt::format("{:.4g}", a->shown(x.get<double>())) : "-");
    }
    const json e = ja::maybe(p, "error");
    row.push_back(view_g(ja::maybe(p, "observed_s"), "{:.6g}"));
    row.push_back(view_g(ja::maybe(p, "predicted_s"), "{:.6g}"));
    row.push_back(e.is_number() ? fmt::format("{:.2f}", 100 * e.get<double>()) : "-");
    t.rows.push_back(row);
  }
  return t;
}

std::string view_text(const json& view, Format format, bool answer_only) {
  const Answer a = {ja::text(view["answer"], "headline"), view["answer"].value("advice", std::vector<std::string>{}),
                    ja::text(view["answer"], "tone"), view["answer"].value("caveats", std::vector<std::string>{})};
  std::string out = format == Format::kMarkdown ? "## " + ja::text(view, "title") + "\n\n" + answer_markdown(a)
                                                : ja::text(view, "title") + "\n\n" + answer_text(a);
  if (answer_only) return out;
  auto para = [&](const std::string& s) { out += (format == Format::kMarkdown ? s : wrap_text(s)) + "\n\n"; };
  if (view.value("emulated", false)) para("EMULATED: these numbers come from a model (the emulated launcher), not a measurement.");
  const json model = view.value("model", json());
  if (!ja::text(view, "model_note").empty()) para(ja::text(view, "model_note"));
  out += render(rates_table(view), format);
  if (model.is_object()) {
    para("Model " + ja::text(model, "model", "?") + ": " + model_formula(ja::text(model, "model")));
    for (const auto& n : fit_notes(model)) para(n);
    for (const auto& w : model.value("warnings", json::array())) if (w.is_string()) para("Warning: " + w.get<std::string>());
    out += render(diagnostics_table(model), format);
    out += render(terms_table(model, ja::text(view, "source")), format);
    out += render(configurations_table(view), format);
  }
  if (view.contains("runs")) out += render(runs_table(view), format) + render(journal_table(view), format);
  return out;
}

}  // namespace hpcsens::report
