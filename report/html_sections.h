#pragma once
// Sections shared between pages (a sweep page shows its model's sections).
#include <string>

#include <nlohmann/json.hpp>

namespace hpcsens::report {

// Verdict, McCalpin bars, observed vs modelled, residuals per varied rate, overlap bounds, per-rank
// shares, from a model's or sweep's answer object (report/model_view.h) whose model is an object.
nlohmann::json model_sections(const nlohmann::json& view);
// "Model cpu+fixed: T = W_cpu / R_cpu + T_fixed (McCalpin); ..." -- the model's own formula.
std::string formula_note(const nlohmann::json& model);
// Per-rank works (`fit --per-rank`) as times at the baseline, and the groups of alike ranks.
nlohmann::json per_rank_section(const nlohmann::json& model, const std::string& file);

}  // namespace hpcsens::report
