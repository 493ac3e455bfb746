#pragma once
// The model file, schema "hpcsens.model.v1" (docs/model-format.md): written by `hpcsens fit`,
// read back by `hpcsens predict` and `hpcsens report`.
#include <string>

#include <nlohmann/json.hpp>

#include "model/analysis.h"

namespace hpcsens::model {

nlohmann::json to_json(const ModelReport& rep);
// Reads what prediction needs (model, parameters, covariance, points, baseline, slack, emulated).
// Throws InputError naming `source` and the field.
ModelReport model_from_json(const nlohmann::json& j, const std::string& source);
ModelReport load_model(const std::string& path);

}  // namespace hpcsens::model
