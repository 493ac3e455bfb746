#pragma once
// `hpcsens report PREDICTION.json | MIX.json --format table|md|csv|json`: a saved prediction or mix
// read back into the objects `hpcsens predict` rendered and rendered by the same renderers, so
// that `predict ... --format json -o p.json; report p.json --format text` prints what
// `predict ... --format text` printed. The answer is the one the file holds, never recomputed;
// JSON is the file itself once every field the other formats show has been read (so what later
// versions add survives). Bad fields: InputError naming the file and the field path.
#include <string>

#include <nlohmann/json.hpp>

#include "model/predict_answer.h"
#include "model/saved_json.h"

namespace hpcsens::model {

inline constexpr const char* kPredictionSchema = "hpcsens.prediction.v1";

// `summary`: only the answer (table or md).
std::string render_saved_prediction(const nlohmann::json& j, const std::string& file, const std::string& format,
                                    bool summary = false);
std::string render_saved_mix(const nlohmann::json& j, const std::string& file, const std::string& format,
                             bool summary = false);

// The file's `answer` object as written (headline, tone, caveats, advice with figures).
Answer read_saved_answer(const SavedJson& s);
// The answer alone in the format (`--summary`); json: the answer object.
std::string render_answer_only(const Answer& a, const std::string& format);

}  // namespace hpcsens::model
