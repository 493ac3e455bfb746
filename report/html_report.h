#pragma once
// `hpcsens report INPUT --format html`: one self-contained page for a run record, a model, a
// prediction or mix (from `predict --format json`) or a sweep directory. The kind is detected
// from the JSON's `schema` (a directory is a sweep). Page builders are pure functions of their
// input so tests can check what a page says without a browser.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "record/run_record.h"

namespace hpcsens::report {

// The HTML text for INPUT; throws InputError naming the file and field for bad input.
std::string html_report(const std::string& input);

// `report INPUT --format table|md|json` of a sweep directory or a model file: its answer object
// (report/model_view.h) as text, Markdown or JSON; of a prediction or mix JSON (csv too): what
// `predict` printed in that format, read back from the file (model/saved_output.h). `summary`:
// the answer only. nullopt for any other input (a run record...).
std::optional<std::string> sweep_or_model_report(const std::string& input, const std::string& format,
                                                 bool summary = false);

// Pages as JSON (see html_page.h). `raw` is the record file parsed as JSON when it is small
// enough to hold twice (for per-rank sections the typed record does not carry), else null.
nlohmann::json run_page(const record::RunRecord& rec, const nlohmann::json& raw);
nlohmann::json model_page(const nlohmann::json& model, const std::string& source);
nlohmann::json prediction_page(const nlohmann::json& prediction, const std::string& source);
nlohmann::json mix_page(const nlohmann::json& mix, const std::string& source);
nlohmann::json sweep_page(const std::string& dir);

// Sections of a run page built from per-rank fields added in record schema_minor 2 (partners,
// msg_sizes, regions, io classes); empty when no rank has them. `raw_ranks` is the ranks array.
std::vector<nlohmann::json> run_extra_sections(const nlohmann::json& raw_ranks, bool emulated);

}  // namespace hpcsens::report
