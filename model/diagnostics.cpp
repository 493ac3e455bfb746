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

double t_critical_95(int df) {
  static const double table[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                 2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                 2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (df < 1) return INFINITY;
  if (df <= 30) return table[df - 1];
  return 1.96 + 2.4 / df;  // close to the tabulated values beyond 30
}

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
  } else if (df >= 2) {
    t.significant = true;
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
