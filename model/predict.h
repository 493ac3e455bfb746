#pragma once
// Projected run time on a configuration or candidate system, with an interval from the fit
// uncertainty (stderr propagation, 95 %) and the wider overlap interval (LP over every work
// vector consistent with the measurements).
#include <optional>
#include <string>
#include <vector>

#include "model/analysis.h"

namespace hpcsens::model {

struct SystemSpec {
  std::string name;
  // 0 (and an empty optional below): not given; predict() uses the model's baseline value and says
  // so, and refuses only a rate the model has a term for.
  double cpu_ghz = 0, mem_gbs = 0;
  std::optional<double> lat_ns;
  std::string where;  // "file:line" for messages
  // For workload mixes: node count, price (any currency) and power (W) of the candidate.
  std::optional<double> nodes, price, power_w;
  // Cycles of work per unit of work relative to the measured machine (1: same microarchitecture
  // and compiler). W_cpu x f / R_cpu equals W_cpu / (R_cpu / f): the factor scales the clock.
  double cpu_work_factor = 1.0;
  // The candidate's interconnect (models with network terms): latency per message, bandwidth.
  // Last, so that positional initializers of the fields above keep their meaning.
  std::optional<double> net_latency_us, net_bandwidth_gbs;
  // The candidate's uncore clock (GHz), for a power model with an uncore term (issue 31); no time
  // model term reads it. Absent: the power model takes the measured baseline's.
  std::optional<double> uncore_ghz;
};

// A rate more than this factor outside the measured range is an extrapolation (docs/methodology.md).
inline constexpr double kExtrapolationFactor = 1.25;
// Beyond this factor the prediction is `unreliable` whatever the model's verdict.
inline constexpr double kFarExtrapolationFactor = 2.0;
// Smallest relative model error assumed when widening an extrapolated prediction.
inline constexpr double kMinModelError = 0.02;

// A rate a prediction used, in the unit the user gives it (model/predict_rates.h).
struct PredictedRate {
  std::string name, unit;  // "net_bandwidth_gbs", "GB/s"
  double value = 0;        // the value the prediction used
  bool given = true;       // false: the candidate left it out and got the model's baseline value
  bool modelled = true;    // the model has a term for it (false: given, but it changes nothing)
  double measured_lo = 0, measured_hi = 0;  // the sweep's range, same unit (NaN when not measured)
  double beyond = 1;       // factor by which the value lies beyond that range (1 inside; modelled rates)
};

struct Prediction {
  SystemSpec system;  // with what it left out filled from the model's baseline
  std::vector<PredictedRate> rates;              // the model's rates, then any other rate given
  double predicted_s = 0;
  // 95 % interval: the jackknife over configurations (t with n-1 df) when the model has one, else
  // the covariance; widened by the model error when extrapolated.
  double fit_low_s = 0, fit_high_s = 0;
  double cov_low_s = 0, cov_high_s = 0;          // predicted -/+ 1.96 sigma from the covariance, for comparison
  std::string interval_method = "covariance";    // of fit_low_s/fit_high_s: jackknife or covariance
  std::vector<std::string> extrapolated;         // rates beyond the measured range x kExtrapolationFactor
  double extrapolation = 1;                      // the largest factor by which a rate lies beyond its range
  std::string verdict = "ok";                    // the model's, downgraded for extrapolation
  std::vector<std::string> verdict_reasons;
  // Why a prediction the model judged `ok` cannot be held to 5 % (model/prediction_verdict.h); also
  // in verdict_reasons, kept apart so that answers name them, not the model's verdict.
  std::vector<std::string> doubts;
  std::optional<double> overlap_low_s, overlap_high_s;  // LP range (absent when infeasible)
  double low_s = 0, high_s = 0;                  // the union of both intervals
  // The model's time at its baseline configuration: speed-ups are model over model, so a candidate
  // with the baseline's rates is 1.00x (the measured time carries the run's noise).
  double baseline_model_s = 0;
  double speedup = 0;                            // baseline_model_s / predicted
  double speedup_low = 0, speedup_high = 0;      // from the fit interval
  std::vector<std::string> warnings;
};

// Throws InputError when the model has a term for a rate the system does not give.
Prediction predict(const ModelReport& model, const SystemSpec& sys);

// YAML: a mapping with a `systems:` list, a list, or one mapping; each with a name and the rates
// it changes (cpu_ghz, mem_gbs, lat_ns, net_latency_us, net_bandwidth_gbs). Errors name file, line
// and field.
std::vector<SystemSpec> load_systems(const std::string& path);
std::vector<SystemSpec> parse_systems(const std::string& yaml_text, const std::string& path);

// Throws InputError naming the later system's file, line and field 'name' when two share a name.
void check_unique_names(const std::vector<SystemSpec>& systems);

// The value a one-rate model holds for the rate it does not vary: the sweep's median.
double held_rate(const ModelReport& m, Rate r);

// Fastest first.
void rank_predictions(std::vector<Prediction>& preds);

// Whether a ranking holds across the fit intervals: for each adjacent pair (fastest first), the
// faster one's fit_high_s is below the slower one's fit_low_s. Returns the pairs that overlap,
// e.g. "a and b"; empty when the whole ranking holds.
std::vector<std::string> ranking_overlaps(const std::vector<Prediction>& ranked);

}  // namespace hpcsens::model
