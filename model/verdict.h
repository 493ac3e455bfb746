#pragma once
// How far to trust a fitted model, in one word and plain reasons (docs/methodology.md,
// "Verdict rules"). Pure functions over the numbers the fit already computed.
#include <cmath>
#include <string>
#include <vector>

#include "model/dataset.h"
#include "model/diagnostics.h"
#include "model/model_spec.h"
#include "model/sensitivity.h"

namespace hpcsens::model {

// Thresholds of the verdict rules.
inline constexpr double kSlopeCaution = 0.05, kSlopeUnreliable = 0.25;  // |slope - 1|
inline constexpr double kMapeUnreliable = 0.10;
inline constexpr double kMapeCautionFloor = 0.03;  // and 3x the run-to-run noise
inline constexpr double kNoiseFactor = 3.0;
inline constexpr double kMapeCautionNoNoise = 0.05;  // when repetitions give no noise estimate
inline constexpr double kR2Unreliable = 0.5, kR2Caution = 0.9;
inline constexpr double kLoocvUnreliable = 0.20;
inline constexpr double kLoocvCaution = 0.10;
// LOOCV MAPE above kLoocvRatio x n/(n-p) x the in-sample MAPE (n/(n-p): what leaving a point out
// costs a correct model) and above kLoocvRatioFloor: the fit leans on individual configurations.
inline constexpr double kLoocvRatio = 2.0, kLoocvRatioFloor = 0.02;
// Fewer degrees of freedom (distinct configurations - parameters) than this: too few to test the model.
inline constexpr int kMinDof = 3;
// A term whose time changes by less than this many times the run-to-run noise over the measured
// range of its rate (kNoEffectFloor when the noise is unknown) cannot be told apart from noise.
inline constexpr double kTermEffectFactor = 2.0;
// A varied rate whose times move less than this (relative) is "no effect" when no noise is known.
inline constexpr double kNoEffectFloor = 0.01;

struct Verdict {
  std::string word = "ok";  // ok | caution | unreliable
  std::vector<std::string> reasons;
  // The statements the model states and the verdict of each ("core clock sensitivity: ok"): a
  // model verdict lowered by one statement says which, and that the others stand.
  std::vector<std::string> covers;
  void caution(const std::string& why);
  void unreliable(const std::string& why);
};

// Run-to-run noise: median over repeated configurations of half their relative time range.
// NaN when no configuration was repeated.
double run_to_run_noise(const std::vector<Point>& points);

// A varied rate of the model whose times did not respond beyond the noise.
struct Unresponsive {
  Rate rate = Rate::none;
  double response = 0, lo = 0, hi = 0;  // relative time change; the rate's range
};
std::vector<Unresponsive> unresponsive_rates(const ModelSpec& spec, const std::vector<Point>& points, double noise);

// Said of a rate whose values are the knob's requests (no measurement confirms it moved): "the
// ... knob probably had no effect".
std::string no_effect_sentence(const Unresponsive& u, double noise);
// Said of a measured rate that moved while the times did not: the code does not respond to it.
std::string insensitive_sentence(const Unresponsive& u, double noise);

// no_effect_sentence for every unresponsive rate.
std::vector<std::string> knobs_without_effect(const ModelSpec& spec, const std::vector<Point>& points, double noise);

// What bears on one statement (an elasticity) beyond the model's global rules.
struct StatementIssues {
  std::vector<std::string> unreliable, caution;
};

// Each elasticity's verdict: the worse of the global verdict and its own issues (aligned with
// `es`). Returns the model's verdict: the global one, lowered to caution naming the statements
// whose own verdict is worse (the others stand), or to unreliable when no statement stands; its
// `covers` lists every statement's verdict.
Verdict judge_statements(const Verdict& global, const std::vector<StatementIssues>& issues,
                         std::vector<Elasticity>& es);

struct VerdictInput {
  const Diagnostics* diag = nullptr;
  double noise = NAN;
  std::vector<std::string> no_effect;     // knobs without effect (judged per statement; here only to skip R²)
  std::vector<std::string> clock_problems;
  bool mixed_apps = false;
  std::string confounded;  // a one-rate model fitted although both rates varied (together)
  bool bounds_feasible = true;
  size_t points = 0;
  int distinct = -1;                      // distinct configurations (by the model's rates); -1: unknown
  int params = 0;                         // fitted parameters
  std::vector<ResidualTrend> trends;      // residual trends against the rates the model varies
};

// Per term (spec.terms order): why the data cannot determine it, or "" when it can. A term is
// undetermined when its time changes by less than kTermEffectFactor x the noise over the measured
// range of its rate, or that range is narrower than kMinRateRatio (identifiability.h).
std::vector<std::string> term_effect_problems(const ModelSpec& spec, const std::vector<double>& params,
                                              const std::vector<Point>& points, double baseline_s, double noise);

// Why a residual trend against a rate arises, in physical terms.
std::string trend_cause(const std::string& rate);

Verdict judge(const VerdictInput& in);

}  // namespace hpcsens::model
