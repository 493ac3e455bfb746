#include "model/diagnostics.h"

#include <algorithm>
#include <cmath>

namespace hpcsens::model {

LinearFit linear_fit(const std::vector<double>& x, const std::vector<double>& y) {
  LinearFit f;
  const size_t n = std::min(x.size(), y.size());
  if (n < 2) return f;
  double mx = 0, my = 0;
  for (size_t i = 0; i < n; ++i) mx += x[i], my += y[i];
  mx /= n, my /= n;
  double sxx = 0, syy = 0, sxy = 0;
  for (size_t i = 0; i < n; ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
    sxy += (x[i] - mx) * (y[i] - my);
  }
  if (sxx <= 0) return f;
  f.slope = sxy / sxx;
  f.intercept = my - f.slope * mx;
  f.r = syy > 0 ? sxy / std::sqrt(sxx * syy) : 0;
  return f;
}

namespace {

// Two-sided critical values of Student's t for 1..30 degrees of freedom; beyond, the normal
// quantile plus a 1/df term that stays close to the tabulated values.
struct TTable {
  double values[30];
  double normal, per_df;
};
constexpr TTable kT95{{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                       2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                       2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042},
                      1.96, 2.4};
constexpr TTable kT99{{63.657, 9.925, 5.841, 4.604, 4.032, 3.707, 3.499, 3.355, 3.250, 3.169,
                       3.106,  3.055, 3.012, 2.977, 2.947, 2.921, 2.898, 2.878, 2.861, 2.845,
                       2.831,  2.819, 2.807, 2.797, 2.787, 2.779, 2.771, 2.763, 2.756, 2.750},
                      2.576, 5.3};  // 2.704 at 40, 2.660 at 60

double t_from(const TTable& t, int df) {
  if (df < 1) return INFINITY;
  if (df <= 30) return t.values[df - 1];
  return t.normal + t.per_df / df;
}

}  // namespace

double t_critical_95(int df) { return t_from(kT95, df); }
double t_critical_99(int df) { return t_from(kT99, df); }

double mean_abs(const std::vector<double>& v) {
  double s = 0;
  size_t n = 0;
  for (double e : v)
    if (std::isfinite(e)) s += std::fabs(e), ++n;
  return n ? s / n : NAN;
}

ResidualTrend residual_trend(const std::string& rate, const std::vector<double>& values,
                             const std::vector<double>& rel_err) {
  ResidualTrend t;
  t.rate = rate;
  const LinearFit f = linear_fit(values, rel_err);
  t.r = f.r;
  t.slope = f.slope;
  const int df = static_cast<int>(values.size()) - 2;
  if (df >= 2 && std::fabs(t.r) < 1) {
    const double tstat = std::fabs(t.r) * std::sqrt(df / (1 - t.r * t.r));
    t.significant = tstat > t_critical_95(df);
    t.strong = tstat > t_critical_99(df);
  } else if (df >= 2) {
    t.significant = t.strong = true;
  }
  return t;
}

Diagnostics diagnose(const std::vector<double>& observed, const std::vector<double>& predicted) {
  Diagnostics d;
  const size_t n = observed.size();
  d.rel_err.resize(n);
  double my = 0;
  for (size_t i = 0; i < n; ++i) {
    d.rel_err[i] = (predicted[i] - observed[i]) / observed[i];
    d.max_abs_err = std::max(d.max_abs_err, std::fabs(d.rel_err[i]));
    my += observed[i];
  }
  d.mape = mean_abs(d.rel_err);
  my /= n;
  const LinearFit f = linear_fit(predicted, observed);
  d.slope = f.slope;
  d.intercept = f.intercept;
  double ss_res = 0, ss_tot = 0;
  for (size_t i = 0; i < n; ++i) {
    ss_res += (observed[i] - predicted[i]) * (observed[i] - predicted[i]);
    ss_tot += (observed[i] - my) * (observed[i] - my);
  }
  d.r2 = ss_tot > 0 ? 1 - ss_res / ss_tot : 0;
  return d;
}

}  // namespace hpcsens::model
