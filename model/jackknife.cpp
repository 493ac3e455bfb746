#include "model/jackknife.h"

#include <algorithm>
#include <cmath>

#include "model/diagnostics.h"

namespace hpcsens::model {

double jackknife_variance(const std::vector<double>& v) {
  double m = 0;
  int n = 0;
  for (double x : v)
    if (std::isfinite(x)) m += x, ++n;
  if (n < 3) return NAN;
  m /= n;
  double ss = 0;
  for (double x : v)
    if (std::isfinite(x)) ss += (x - m) * (x - m);
  return ss * (n - 1) / n;
}

int usable_fits(const std::vector<std::vector<double>>& loo_params) {
  int n = 0;
  for (const auto& p : loo_params) n += !p.empty();
  return n;
}

Matrix jackknife_covariance(const std::vector<std::vector<double>>& loo) {
  const int n = usable_fits(loo);
  if (n < 3) return {};
  size_t np = 0;
  for (const auto& p : loo) np = std::max(np, p.size());
  std::vector<double> mean(np, 0.0);
  for (const auto& p : loo)
    for (size_t a = 0; a < p.size(); ++a) mean[a] += p[a] / n;
  Matrix c(np, std::vector<double>(np, 0.0));
  for (const auto& p : loo) {
    if (p.empty()) continue;
    for (size_t a = 0; a < np; ++a)
      for (size_t b = 0; b < np; ++b) c[a][b] += (p[a] - mean[a]) * (p[b] - mean[b]) * (n - 1) / n;
  }
  return c;
}

double jackknife_t(int n) { return t_critical_95(n - 1); }

double model_error_half(double max_abs_err, double lo, double hi) {
  if (!(hi > lo) || !(lo > 0) || !std::isfinite(max_abs_err)) return 0;
  return kModelErrorSlope * max_abs_err / std::log(hi / lo);
}

double top_step_elasticity(const std::vector<Point>& points, const Point& b, Rate r) {
  const double rb = rate_value(r, b);
  const Point* below = nullptr;
  for (const auto& p : points) {
    bool others_held = true;
    for (Rate o : {Rate::cpu_ghz, Rate::mem_gbs})
      if (o != r && std::isfinite(rate_value(o, b)) && std::fabs(rate_value(o, p) / rate_value(o, b) - 1) > 0.01)
        others_held = false;
    const double v = rate_value(r, p);
    if (others_held && v < rb * 0.99 && (!below || v > rate_value(r, *below))) below = &p;
  }
  if (!below || !(b.time_s > 0) || !(below->time_s > 0)) return NAN;
  return std::log(b.time_s / below->time_s) / std::log(rb / rate_value(r, *below));
}

std::vector<double> replicates(const std::vector<std::vector<double>>& loo,
                               const std::function<double(const std::vector<double>&)>& statistic) {
  std::vector<double> out;
  for (const auto& p : loo)
    if (!p.empty()) out.push_back(statistic(p));
  return out;
}

}  // namespace hpcsens::model
