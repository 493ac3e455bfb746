#pragma once
// Human and machine renderings of a model report and of predictions. Emulated inputs are
// labelled EMULATED in every format.
#include <string>
#include <vector>

#include "common/answer.h"
#include "model/analysis.h"
#include "model/predict.h"

namespace hpcsens::model {

using Answer = answer::Answer;  // every answer's object (common/answer.h)

// format: "table", "json", "csv" (the tidy `table`: points, terms or ranks; see fit_tables.h), "md".
// Throws InputError otherwise.
std::string render_fit(const ModelReport& rep, const std::string& format, const std::string& table = "points");
// The CSV with a first column `region` holding `region` on every row ("" : unchanged).
std::string with_region_column(const std::string& csv, const std::string& region);
// format: "table", "md", "csv" or "json" (model/predict_output.cpp); each opens with the answer.
// `model_path` is named in the advice and the JSON.
std::string render_predictions(const ModelReport& model, const std::vector<Prediction>& preds,
                               const std::string& format, const std::string& model_path = "");
// The same with the answer given: a prediction read back from its JSON renders the answer it was
// written with (model/saved_output.h), never one recomputed from the read-back numbers.
std::string render_predictions(const ModelReport& model, const std::vector<Prediction>& preds, const Answer& answer,
                               const std::string& format, const std::string& model_path);

}  // namespace hpcsens::model
