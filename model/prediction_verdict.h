#pragma once
// The verdict of one prediction from evidence the fit has (docs/methodology.md, "Prediction
// verdicts"): `ok` promises an error within kOkPredictionError, so a prediction keeps the model's
// `ok` only when its model-error-aware interval is that narrow and every rate it projects lies at a
// measured setting or between two settings close enough that the model's form between them was
// tested. Otherwise `caution`, with a reason that names the width or the gap.
#include <string>
#include <vector>

#include "model/analysis.h"
#include "model/predict.h"

namespace hpcsens::model {

// The error an `ok` prediction is held to (issue 30: never `ok` with more than 5 % error).
inline constexpr double kOkPredictionError = 0.05;
// Largest ratio between the two measured settings around a projected rate for which the model's
// form between them counts as tested (2x, with 5 % for clock jitter); 20 and 80 GB/s is not.
inline constexpr double kMaxTestedGap = 2.1;
// A projected rate this close (relative) to a measured setting is at that setting.
inline constexpr double kAtSettingTolerance = 0.02;

// Why an `ok` prediction cannot be held to kOkPredictionError; empty when it can. Pure.
std::vector<std::string> prediction_doubts(const ModelReport& m, const Prediction& p);

// Lowers an `ok` prediction to `caution` with the doubts as reasons; leaves others as they are.
void judge_prediction(const ModelReport& m, Prediction& p);

}  // namespace hpcsens::model
