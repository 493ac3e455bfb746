#pragma once
// From a dataset to a complete model report: model choice, identifiability, fit, uncertainty,
// diagnostics, overlap bounds and per-rank shares. Everything `hpcsens fit` prints or writes.
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "model/dataset.h"
#include "model/diagnostics.h"
#include "model/energy_decision.h"
#include "model/fitter.h"
#include "model/node_effects.h"
#include "model/overlap_bounds.h"
#include "model/per_rank.h"
#include "model/rate_variation.h"
#include "model/sensitivity.h"
#include "model/verdict.h"

namespace hpcsens::model {

inline constexpr const char* kModelSchema = "hpcsens.model.v1";

struct TermResult {
  Term term = Term::cpu;
  double work = 0, stderr_ = 0;
  TermBounds bounds;                             // from the overlap LP
  double share = 0, share_lo = 0, share_hi = 0;  // W_k x_k / T at the baseline (fit, LP interval)
  std::string unreliable;                        // why the data cannot determine this term ("" if it can)
  // Jackknife over configurations (model/jackknife.h): standard error and 95 % intervals of the
  // work and the share; NaN when fewer than 3 leave-one-out fits were usable.
  double jk_stderr = NAN, work_lo = NAN, work_hi = NAN, share_jk_lo = NAN, share_jk_hi = NAN;
};

// A parameter that defines a model's form beyond cpu+mem (io, lat, network terms, overlap's w).
struct ExtraParameter {
  std::string name;
  double value = 0, stderr_ = 0;
};

struct CandidateScore {
  std::string model;
  bool identifiable = false;
  double mape = NAN, loocv_mape = NAN;
  std::vector<ExtraParameter> extra;  // what its form adds to cpu+mem, each with its standard error
  // Every parameter of `extra` more than 2 standard errors above zero.
  bool significant() const {
    for (const auto& x : extra)
      if (!(x.value > 2 * x.stderr_)) return false;
    return true;
  }
  std::string note;               // why it was skipped or not preferred
  double loocv_se = NAN;          // standard error of loocv_mape (spread of |LOOCV error| / sqrt(n))
  std::vector<double> loo_err;    // per configuration, for the paired comparison (not written out)
};

struct AnalyzeOptions {
  std::string model = "auto";
  FitOptions fit;
  bool allow_mixed = false;
  bool per_rank = false;
  double bounds_slack = kDefaultBoundsSlack;
  // Parsimony for --model auto: a more complex model must lower the LOOCV MAPE by this much,
  // both relative to the simpler one and in absolute fraction.
  double auto_margin_rel = 0.10;
  double auto_margin_abs = 0.002;
  double max_slowdown = kDefaultMaxSlowdown;  // --max-slowdown: the energy decision's allowance
  std::string baseline;  // --baseline LABEL: the configuration sensitivities are stated at ("" = fastest setting)
};

struct ModelReport {
  ModelSpec spec;
  std::vector<double> params;
  Matrix covariance;           // parameter covariance (params order)
  std::string stderr_method;   // "covariance" or "bootstrap"
  std::vector<TermResult> terms;
  std::optional<double> overlap_w, overlap_w_stderr;
  Diagnostics diag;
  std::vector<double> predicted, loocv_err;
  std::vector<Point> points;
  size_t baseline = 0;
  std::string baseline_reason;  // why that configuration (model/baseline.h)
  OverlapBounds bounds;
  double condition_number = 0;
  std::vector<std::string> warnings;
  bool emulated = false;
  Robust robust = Robust::none;
  std::vector<CandidateScore> candidates;  // --model auto only
  std::string selection_reason;
  bool has_per_rank = false;
  std::vector<RankShare> per_rank;
  std::vector<RankGroup> groups;
  std::vector<std::string> sources;
  std::string app;                         // the application fitted (records' command or CSV app)
  std::string region;                      // the named region fitted (--region), "" for the job
  std::vector<std::string> notes;          // plain words: what a term lumps together, what was not separable
  Verdict verdict;                         // ok | caution | unreliable, with reasons
  double noise = NAN;                      // run-to-run noise (relative), NaN without repetitions
  std::vector<Elasticity> elasticities;    // per varied rate at the baseline
  std::string sensitivity;                 // the same in one sentence
  NodeEffects node_effects;                // per-node mean residual, flagged against the noise
  std::vector<RateVariation> rates;        // which rates the sweep varied by design, which only jittered
  std::vector<std::vector<double>> loo_params;  // leave-one-out fits (empty: failed)
  bool loo_closed_form = false;                 // from the full fit in closed form (validation.h)
  Matrix jackknife_covariance;                  // of the parameters; empty with < 3 usable fits
  int jackknife_n = 0;                          // usable leave-one-out fits
  std::string interval_method = "covariance";   // what low/high of elasticities and predictions use
  EnergyReport energy;                          // power model and energy decisions (model/energy_analysis.h)
};

// The configuration of the highest set CPU rate, then the fastest network setting, then the highest
// memory setting: the machine at full speed, against which predictions quote speed-ups
// (choose_baseline in model/baseline.h, which also says why).
size_t pick_baseline(const std::vector<Point>& points);

// Throws InputError (exit 2) when the design cannot identify the requested model.
ModelReport analyze(const Dataset& data, const AnalyzeOptions& opts);

}  // namespace hpcsens::model
