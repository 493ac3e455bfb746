#pragma once
// Sensitivities in words: for each varied rate, the elasticity of run time at the baseline
// (percent of run time per percent of the rate, from the fitted terms) and the time saved by
// 10 % more of it, with a 95 % interval from the work's standard error. Pure functions.
#include <cmath>
#include <string>
#include <vector>

#include "model/model_spec.h"

namespace hpcsens::model {

struct Elasticity {
  Rate rate = Rate::none;
  double elasticity = 0, low = 0, high = 0;           // d ln T / d ln R (negative: more rate, less time)
  double saving_10 = 0, saving_10_low = 0, saving_10_high = 0;  // fraction of run time saved by a 10 % better rate
  bool unreliable = false;  // its term cannot be determined by the data (verdict.h, term_effect_problems)
  double cov_low = NAN, cov_high = NAN;  // the covariance interval (assumes the model is right), for comparison
  // This statement's own verdict (ok | caution | unreliable): the model's rules that bear on every
  // statement, plus those of its own rate (its term determined, its knob effective, its response).
  std::string verdict = "ok";
  std::vector<std::string> verdict_reasons;
};

// Replaces each elasticity's interval (low/high and the savings) by elasticity -/+ half[i] (the
// jackknife's), the share clipped to [0, 1]; the covariance interval moves to cov_low/cov_high.
void set_resampled_intervals(std::vector<Elasticity>& es, const std::vector<double>& half);

// `work` and `stderr` in spec.terms order (for the overlap model `work` may carry w after the
// works: the smaller of the cpu and memory parts then counts (1 - w)); the baseline configuration
// and its modelled time.
std::vector<Elasticity> elasticities(const ModelSpec& spec, const std::vector<double>& work,
                                     const std::vector<double>& stderr_, const Point& baseline,
                                     double modelled_s);

// "at 3 GHz / 120 GB/s, 10 % more memory bandwidth saves 2.4 % (1.9-2.9 %) of run time; ..."
std::string sensitivity_sentence(const std::vector<Elasticity>& e, const Point& baseline);

// The same from shares of time (per rank): "10 % more core clock saves 6.1 %, ...", only for the
// rates the model has a term for (a rate the sweep did not vary gets no sentence).
std::string share_sentence(const ModelSpec& spec, double cpu_share, double mem_share);

// "core clock", "memory bandwidth", "memory latency".
const char* rate_words(Rate r);

}  // namespace hpcsens::model
