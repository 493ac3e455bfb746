#include "model/validation.h"

#include <cmath>
#include <random>

namespace hpcsens::model {

std::vector<double> loocv_errors(const ModelSpec& spec, const std::vector<Point>& points,
                                 const std::vector<double>& times, const FitOptions& opts) {
  std::vector<double> err(points.size(), NAN);
  for (size_t i = 0; i < points.size(); ++i) {
    std::vector<Point> train;
    std::vector<double> t;
    for (size_t j = 0; j < points.size(); ++j)
      if (j != i) train.push_back(points[j]), t.push_back(times[j]);
    const FitResult f = fit_model(spec, train, t, opts);
    if (!f.converged) continue;
    err[i] = (model_time(spec, f.params, points[i]) - times[i]) / times[i];
  }
  return err;
}

Matrix bootstrap_covariance(const ModelSpec& spec, const std::vector<Point>& points,
                            const std::vector<double>& times, const std::vector<double>& params,
                            const FitOptions& opts, int samples, unsigned seed) {
  const size_t n = points.size();
  const int np = spec.num_params();
  std::vector<double> pred(n), rel(n);
  for (size_t j = 0; j < n; ++j) {
    pred[j] = model_time(spec, params, points[j]);
    rel[j] = times[j] / pred[j] - 1.0;
  }
  std::mt19937 rng(seed);
  std::uniform_int_distribution<size_t> pick(0, n - 1);
  std::vector<std::vector<double>> draws;
  std::vector<double> t(n);
  for (int b = 0; b < samples; ++b) {
    for (size_t j = 0; j < n; ++j) t[j] = pred[j] * (1.0 + rel[pick(rng)]);
    const FitResult f = fit_model(spec, points, t, opts);
    if (f.converged) draws.push_back(f.params);
  }
  Matrix c(np, std::vector<double>(np, 0.0));
  if (draws.size() < 2) return c;
  std::vector<double> mean(np, 0.0);
  for (const auto& d : draws)
    for (int a = 0; a < np; ++a) mean[a] += d[a] / draws.size();
  for (const auto& d : draws)
    for (int a = 0; a < np; ++a)
      for (int b = 0; b < np; ++b) c[a][b] += (d[a] - mean[a]) * (d[b] - mean[b]) / (draws.size() - 1);
  return c;
}

}  // namespace hpcsens::model
