#pragma once
// Goodness-of-fit numbers, judged as McCalpin does: per-point error, slope of observed
// against modelled time near 1, and residual trends against each rate. Pure functions.
#include <string>
#include <vector>

namespace hpcsens::model {

struct LinearFit {
  double slope = 0, intercept = 0, r = 0;  // r: Pearson correlation
};
// Ordinary least squares y = intercept + slope x.
LinearFit linear_fit(const std::vector<double>& x, const std::vector<double>& y);

struct ResidualTrend {
  std::string rate;       // "cpu_ghz", "mem_gbs", "lat_ns"
  double r = 0;           // correlation of relative residual with the rate
  double slope = 0;       // relative residual per unit of the rate
  bool significant = false;  // |t| of the correlation above the two-sided 5 % critical value
  bool strong = false;       // ... above the two-sided 1 % value: what the verdict acts on
};

struct Diagnostics {
  std::vector<double> rel_err;  // (pred - obs) / obs per point
  double mape = 0;              // mean |rel_err|, a fraction
  double max_abs_err = 0;       // max |rel_err|
  double slope = 0, intercept = 0;  // observed = intercept + slope x predicted
  double r2 = 0;                // 1 - SS_res / SS_tot of observed around predicted
  double loocv_mape = 0;        // filled by the caller (needs refits)
  std::vector<ResidualTrend> trends;
};

Diagnostics diagnose(const std::vector<double>& observed, const std::vector<double>& predicted);
// Adds a trend entry for one rate (values aligned with the points).
ResidualTrend residual_trend(const std::string& rate, const std::vector<double>& values,
                             const std::vector<double>& rel_err);
// Two-sided 5 % critical value of Student's t with `df` degrees of freedom.
double t_critical_95(int df);
// Two-sided 1 % critical value of Student's t with `df` degrees of freedom.
double t_critical_99(int df);
double mean_abs(const std::vector<double>& v);

}  // namespace hpcsens::model
