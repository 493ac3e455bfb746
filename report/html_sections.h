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

// The model's energy (docs/model-format.md, "energy"): the energy-against-time chart with the
// Pareto front and the chosen points, the answer and each decision's sentence as the JSON says
// them. null when the model has no energy object.
nlohmann::json energy_trade_off_section(const nlohmann::json& model, const std::string& file);

// A rate axis spanning more than a factor of 20 (an added network delay next to shared memory's
// own) is drawn logarithmic, so the low settings do not collapse onto the axis.
inline bool spans_decades(double lo, double hi) { return lo > 0 && hi / lo > 20; }

}  // namespace hpcsens::report
