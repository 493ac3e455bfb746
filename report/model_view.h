#pragma once
// The one answer object of a model (hpcsens.model.v1) and of a sweep directory: built once, then
// rendered by the HTML page, text, Markdown and JSON (`hpcsens report INPUT --format ...`); no
// renderer recomputes it (design.md, "One answer per input"). Everything in it follows the
// rates the sweep varied (report/rate_axes.h).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/headline.h"
#include "report/rate_axes.h"
#include "report/table.h"

namespace hpcsens::report {

// Where the model lives, for advice that names it: the file, and the command that writes it when
// the page fitted the model itself (then `path` does not exist yet).
struct ModelPlace {
  std::string path;
  std::string keep_command;  // "" when `path` holds the model
  // The shipped example of candidate systems as this hpcsens finds it (an install's
  // share/hpcsens/examples/systems/candidates.yaml), "" where it finds none (a build tree).
  std::string systems_example = installed_systems_example();
  static std::string installed_systems_example();
};

// Headline (verdict, what the sweep varied), caveats (other reasons, held rates, emulated data,
// undetermined terms) and advice: actions, each naming the figure that motivates it.
Answer model_answer(const nlohmann::json& model, const std::vector<RateRole>& roles, const ModelPlace& place);

// {kind: "model", source, title, emulated, answer, rates, residuals, model}.
nlohmann::json model_view(const nlohmann::json& model, const std::string& path);

// Refuses (InputError naming `file`) a model without its `terms` array: a file that says it is a
// model but was not written by `hpcsens fit`, with what to do instead.
void require_model_terms(const nlohmann::json& model, const std::string& file);
// {kind: "sweep", source, title, emulated, answer, rates, residuals, model, model_note, runs, journal}.
nlohmann::json sweep_view(const std::string& dir);

// Residuals of the model's configurations against each varied rate, in shown units:
// [{rate, shown_key, words, unit, points: [{label, x, error_pct}]}].
nlohmann::json residuals_json(const nlohmann::json& model, const std::vector<RateRole>& roles);

// Tables shared by the page and the text forms.
Table rates_table(const nlohmann::json& view);
Table diagnostics_table(const nlohmann::json& model);
Table terms_table(const nlohmann::json& model, const std::string& file);
Table configurations_table(const nlohmann::json& view);
Table runs_table(const nlohmann::json& view);
Table journal_table(const nlohmann::json& view);
// Model choice and the fit's notes: facts about the fit, not things to try.
std::vector<std::string> fit_notes(const nlohmann::json& model);

// Text or Markdown of a model or sweep view (the answer first, then its tables; only the answer
// when `answer_only`, as `report --summary`).
std::string view_text(const nlohmann::json& view, Format format, bool answer_only = false);

}  // namespace hpcsens::report
