#pragma once
// The answer of a prediction and of a workload mix: one headline, the caveats it rests on and the
// advice, each advice item with the figure that motivates it. Built once from the numbers; text,
// Markdown, JSON and the HTML page render this object and never recompute it (CSV carries its
// per-candidate verdicts and extrapolation). The headline
// is never more confident than the weakest fact it rests on: a winner whose own projection is
// extrapolated or unreliable says so in the headline, and the advice fixes that cause (measure
// nearer the candidate's rate) rather than asking for more repetitions.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/answer.h"
#include "model/analysis.h"
#include "model/predict.h"

namespace hpcsens::model {

// The answer and its layout are shared with every other answer (common/answer.h).
using AdviceItem = answer::Advice;
using Answer = answer::Answer;

// `ranked`: fastest first. `model_path`: the model file, named in advice ("" when unknown).
Answer prediction_answer(const ModelReport& m, const std::vector<Prediction>& ranked, const std::string& model_path);

// The shared layouts (common/answer.h) under the names predict's and mix's renderers use.
inline nlohmann::json answer_json(const Answer& a) { return answer::to_json(a); }
inline std::string answer_text(const Answer& a) { return answer::text(a); }
inline std::string answer_markdown(const Answer& a) { return answer::markdown(a); }

// Shared by the prediction and mix answers (model/predict_answer_rules.cpp).
namespace answer_rules {
// "ok" -> "ok", "unreliable" -> "bad", anything else -> "caution".
std::string tone_of(const std::string& verdict);
// The worse of two tones (bad > caution > ok > info).
std::string worse(const std::string& a, const std::string& b);
// "mem_gbs 480 GB/s is 4.00x beyond the measured 60 to 120 GB/s" for each extrapolated rate.
std::vector<std::string> extrapolation_facts(const Prediction& p);
// One advice item per extrapolated rate over `who` (label, prediction): measure toward the
// farthest value, and the point that ends the extrapolation. `subject`: "" or "application 'qe'".
std::vector<AdviceItem> extrapolation_advice(const std::vector<std::pair<std::string, const Prediction*>>& who,
                                             const std::string& subject);
// "3 GHz" with the unit of the rate; "-" when not finite.
std::string rate_text(double v, const std::string& unit);
using answer::list_words;  // "a, b and c"
}  // namespace answer_rules

}  // namespace hpcsens::model
