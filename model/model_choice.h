#pragma once
// --model auto: which term set to fit. Two-rate models when the design separates the rates,
// otherwise the largest identifiable one-rate model (cpu+fixed, mem+fixed) with a note.
#include "model/analysis.h"

namespace hpcsens::model {

// Fills rep.candidates, rep.selection_reason and (one-rate fallback) rep.notes.
// Throws InputError when no model is identifiable.
ModelSpec choose_model(const std::vector<Point>& pts, const AnalyzeOptions& opts, ModelReport& rep);

}  // namespace hpcsens::model
