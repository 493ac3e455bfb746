#pragma once
// The model JSON's `energy` object (docs/model-format.md, "Energy in the model JSON"): written by
// fit and predict, read back by predict for its candidates.
#include <string>

#include <nlohmann/json.hpp>

#include "model/analysis.h"

namespace hpcsens::model {

nlohmann::json energy_to_json(const EnergyReport& e);

// Reads j["energy"] (when present) into m.energy and its measured points' energy, power and
// uncore clock into m.points (by label). Throws InputError naming `src` and the field.
void energy_from_json(const nlohmann::json& j, const std::string& src, ModelReport& m);

// The whole energy report as energy_to_json wrote it (points, decisions, sentence, notes), for a
// saved prediction read back: render_energy prints it as predict did. Throws InputError naming
// `src` and the field.
EnergyReport energy_report_from_json(const nlohmann::json& j, const std::string& src);

}  // namespace hpcsens::model
