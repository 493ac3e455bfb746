#pragma once
// From a fitted time model whose points carry energy to its energy report (model/energy_decision.h):
// `hpcsens fit` over the measured configurations, `hpcsens predict` over them and the candidates.
#include <vector>

#include "model/analysis.h"
#include "model/energy_decision.h"
#include "model/predict.h"

namespace hpcsens::model {

// The power model and decisions over rep.points; not available (with the reason, naming the first
// configuration without energy and the record's words) unless every configuration has energy.
EnergyReport analyze_energy(const ModelReport& rep, double max_slowdown);

// rep.energy (fitted, or read back from the model file) with the candidates added as predicted
// points and the decisions taken again over all of them.
EnergyReport energy_with_candidates(const ModelReport& rep, const std::vector<Prediction>& preds,
                                    double max_slowdown);

// The candidate's energy per job (J) and mean power (W) by the power model, for a mix ranked per
// watt from measured power; nullopt when the model has no energy. The baseline's energy is the
// models' too (power model x baseline_model_s): ratios are model over model, as speed-ups are.
struct CandidatePower {
  double power_w = 0, energy_j = 0;
  double baseline_power_w = 0, baseline_energy_j = 0;
};
std::optional<CandidatePower> candidate_power(const ModelReport& rep, const Prediction& p);

// The uncore clock the power model takes for a candidate: its uncore_ghz, else the baseline's.
std::optional<double> candidate_uncore(const ModelReport& m, const Prediction& p);

// Why the power model's figure for this candidate is less sure than the fit: its clock lies beyond
// the measured ones (x kExtrapolationFactor), or it is another machine (cpu_work_factor != 1).
std::vector<std::string> candidate_power_doubts(const ModelReport& m, const Prediction& p);
// What the candidate's uncore_ghz does to the power model, where it is not plain: absent for a
// power model with an uncore term (the baseline's is taken), or given to one without. "" else.
std::string candidate_uncore_note(const ModelReport& m, const Prediction& p);

}  // namespace hpcsens::model
