#include "model/validation.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <random>

namespace hpcsens::model {

namespace {

LeaveOneOut exact_refits(const ModelSpec& spec, const std::vector<Point>& points, const std::vector<double>& times,
                         const FitOptions& opts) {
  LeaveOneOut out;
  out.err.assign(points.size(), NAN);
  out.params.resize(points.size());
  std::vector<Point> train;
  std::vector<double> t;
  for (size_t i = 0; i < points.size(); ++i) {
    train.clear(), t.clear();
    for (size_t j = 0; j < points.size(); ++j)
      if (j != i) train.push_back(points[j]), t.push_back(times[j]);
    const FitResult f = fit_model(spec, train, t, opts);
    if (!f.converged) continue;
    out.err[i] = (model_time(spec, f.params, points[i]) - times[i]) / times[i];
    out.params[i] = f.params;
  }
  return out;
}

// Parameters off their bounds: the ones a small change of the data moves (a work at 0 stays 0).
std::vector<int> free_parameters(const ModelSpec& spec, const std::vector<double>& p) {
  std::vector<int> free;
  const int nt = static_cast<int>(spec.terms.size());
  double scale = 0;
  for (int k = 0; k < nt; ++k) scale = std::max(scale, std::fabs(p[k]));
  for (int k = 0; k < nt; ++k)
    if (p[k] > 1e-10 * scale) free.push_back(k);
  if (spec.overlap && p[nt] > 1e-9 && p[nt] < 1 - 1e-9) free.push_back(nt);
  return free;
}

LeaveOneOut closed_form(const ModelSpec& spec, const std::vector<Point>& points, const std::vector<double>& times,
                        const FitOptions& opts, const std::vector<double>& params) {
  LeaveOneOut out;
  out.closed_form = true;
  const size_t n = points.size();
  out.err.assign(n, NAN);
  out.params.resize(n);
  const std::vector<int> free = free_parameters(spec, params);
  const int q = static_cast<int>(free.size());
  if (q == 0) return out;
  Eigen::MatrixXd J(n, q);
  Eigen::VectorXd r(n), w(n);
  for (size_t i = 0; i < n; ++i) {
    const bool usable = std::isfinite(times[i]) && times[i] > 0;
    const auto g = model_gradient(spec, params, points[i]);
    for (int a = 0; a < q; ++a) J(i, a) = usable ? g[free[a]] / times[i] : 0.0;
    r(i) = usable ? model_time(spec, params, points[i]) / times[i] - 1.0 : 0.0;
    w(i) = usable ? loss_weight(opts, r(i) * r(i)) : 0.0;
  }
  const Eigen::MatrixXd A = J.transpose() * w.asDiagonal() * J;
  const Eigen::LDLT<Eigen::MatrixXd> ldlt(A);
  if (ldlt.info() != Eigen::Success) return out;
  const Eigen::MatrixXd AiJt = ldlt.solve(J.transpose());  // q x n
  for (size_t i = 0; i < n; ++i) {
    if (!(w(i) > 0)) continue;
    const double h = w(i) * J.row(i).dot(AiJt.col(i));
    if (!(h < 1 - 1e-12)) continue;  // the point alone determines a parameter: no fit without it
    std::vector<double> p = params;
    const Eigen::VectorXd step = AiJt.col(i) * (w(i) * r(i) / (1 - h));
    for (int a = 0; a < q; ++a) p[free[a]] = std::max(0.0, p[free[a]] + step(a));
    if (spec.overlap) p.back() = std::min(1.0, p.back());
    out.err[i] = (model_time(spec, p, points[i]) - times[i]) / times[i];
    out.params[i] = std::move(p);
  }
  return out;
}

}  // namespace

LeaveOneOut leave_one_out(const ModelSpec& spec, const std::vector<Point>& points, const std::vector<double>& times,
                          const FitOptions& opts, const std::vector<double>& params) {
  if (points.size() <= kExactLooMaxPoints) return exact_refits(spec, points, times, opts);
  return closed_form(spec, points, times, opts, params);
}

std::vector<double> loocv_errors(const ModelSpec& spec, const std::vector<Point>& points,
                                 const std::vector<double>& times, const FitOptions& opts) {
  if (points.size() <= kExactLooMaxPoints) return exact_refits(spec, points, times, opts).err;
  const FitResult f = fit_model(spec, points, times, opts);
  if (!f.converged) return std::vector<double>(points.size(), NAN);
  return closed_form(spec, points, times, opts, f.params).err;
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
