#include "model/fitter.h"

#include <ceres/ceres.h>
#include <glog/logging.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "common/errors.h"
#include "model/dataset.h"
#include "model/nnls.h"
#include "model/overlap_profile.h"

namespace hpcsens::model {
namespace {

constexpr int kMaxParams = 5;

// One configuration's relative residual with an analytic Jacobian: the model is linear in W
// (piecewise linear in the overlap variant), so autodiff would only add cost.
class RelativeResidual final : public ceres::CostFunction {
 public:
  RelativeResidual(const ModelSpec& spec, const Point& pt, double observed)
      : n_terms_(static_cast<int>(spec.terms.size())), overlap_(spec.overlap), inv_t_(1.0 / observed) {
    for (int k = 0; k < n_terms_; ++k) x_[k] = basis(spec.terms[k], pt);
    cpu_ = spec.index_of(Term::cpu);
    mem_ = spec.index_of(Term::mem);
    set_num_residuals(1);
    mutable_parameter_block_sizes()->push_back(spec.num_params());
  }

  bool Evaluate(double const* const* parameters, double* residuals, double** jacobians) const override {
    const double* p = parameters[0];
    double sum = 0;
    for (int k = 0; k < n_terms_; ++k) sum += p[k] * x_[k];
    double gap = 0;  // sum - max of the overlapping parts
    bool cpu_larger = true;
    if (overlap_) {
      const double pc = p[cpu_] * x_[cpu_], pm = p[mem_] * x_[mem_];
      cpu_larger = pc >= pm;
      gap = std::min(pc, pm);
      sum -= p[n_terms_] * gap;
    }
    residuals[0] = sum * inv_t_ - 1.0;
    if (jacobians && jacobians[0]) {
      double* J = jacobians[0];
      for (int k = 0; k < n_terms_; ++k) J[k] = x_[k] * inv_t_;
      if (overlap_) {
        const double w = p[n_terms_];
        J[cpu_larger ? mem_ : cpu_] *= (1.0 - w);
        J[n_terms_] = -gap * inv_t_;
      }
    }
    return true;
  }

 private:
  int n_terms_;
  bool overlap_;
  double inv_t_;
  double x_[kMaxParams] = {};
  int cpu_ = -1, mem_ = -1;
};

// Ceres logs through glog to stderr, e.g. when the covariance is rank-deficient. We detect
// those cases ourselves and report them as warnings, so its messages would only be noise.
void quiet_ceres_logging() {
  static const bool done = [] {
    FLAGS_minloglevel = google::GLOG_FATAL;
    return true;
  }();
  (void)done;
}

ceres::LossFunction* make_loss(const FitOptions& o) {
  switch (o.robust) {
    case Robust::huber: return new ceres::HuberLoss(o.robust_scale);
    case Robust::cauchy: return new ceres::CauchyLoss(o.robust_scale);
    case Robust::none: break;
  }
  return nullptr;
}

void build_problem(ceres::Problem& problem, double* p, const ModelSpec& spec, const std::vector<Point>& points,
                   const std::vector<double>& times, const FitOptions& opts) {
  for (size_t j = 0; j < points.size(); ++j) {
    if (!std::isfinite(times[j]) || times[j] <= 0) continue;
    problem.AddResidualBlock(new RelativeResidual(spec, points[j], times[j]), make_loss(opts), p);
  }
  const int n = static_cast<int>(spec.terms.size());
  for (int k = 0; k < n; ++k) problem.SetParameterLowerBound(p, k, 0.0);
  if (spec.overlap) {
    problem.SetParameterLowerBound(p, n, 0.0);
    problem.SetParameterUpperBound(p, n, 1.0);
  }
}

// Without a robust loss and without the overlap correction the objective is linear least squares
// in the works (rows x_k / T_j, target 1), W >= 0: finish with its exact constrained optimum,
// since Ceres' bounded steps can stop short of it when a work sits at 0.
void polish_linear(const ModelSpec& spec, const std::vector<Point>& points, const std::vector<double>& times,
                   const FitOptions& opts, std::vector<double>& params) {
  if (spec.overlap || opts.robust != Robust::none) return;
  std::vector<std::vector<double>> rows;
  for (size_t j = 0; j < points.size(); ++j) {
    if (!std::isfinite(times[j]) || times[j] <= 0) continue;
    std::vector<double> row;
    for (Term t : spec.terms) row.push_back(basis(t, points[j]) / times[j]);
    rows.push_back(std::move(row));
  }
  const auto exact = nonneg_least_squares(rows, std::vector<double>(rows.size(), 1.0), params);
  if (exact && std::all_of(exact->begin(), exact->end(), [](double v) { return std::isfinite(v); })) params = *exact;
}

}  // namespace

Robust parse_robust(const std::string& s) {
  if (s == "none" || s.empty()) return Robust::none;
  if (s == "huber") return Robust::huber;
  if (s == "cauchy") return Robust::cauchy;
  throw InputError("--robust", "unknown loss '" + s + "' (expected none, huber or cauchy)");
}

const char* robust_name(Robust r) {
  switch (r) {
    case Robust::huber: return "huber";
    case Robust::cauchy: return "cauchy";
    case Robust::none: break;
  }
  return "none";
}

namespace {

// The starting point Ceres used alone before: every term explaining an equal share of the
// typical time, w = 0.25.
std::vector<double> default_start(const ModelSpec& spec, const std::vector<Point>& points,
                                  const std::vector<double>& times) {
  const int n = static_cast<int>(spec.terms.size());
  std::vector<double> p(spec.num_params(), 0.0);
  for (int k = 0; k < n; ++k) {
    std::vector<double> ratios;
    for (size_t j = 0; j < points.size(); ++j)
      if (std::isfinite(times[j]) && times[j] > 0) ratios.push_back(times[j] / basis(spec.terms[k], points[j]));
    p[k] = ratios.empty() ? 1.0 : median(ratios) / n;
  }
  if (spec.overlap) p[n] = 0.25;
  return p;
}

// One bounded trust-region solve from `start`.
FitResult solve_from(const ModelSpec& spec, const std::vector<Point>& points, const std::vector<double>& times,
                     const FitOptions& opts, std::vector<double> start) {
  double p[kMaxParams] = {};
  std::copy(start.begin(), start.end(), p);
  ceres::Problem::Options po;
  ceres::Problem problem(po);
  build_problem(problem, p, spec, points, times, opts);
  FitResult r;
  if (problem.NumResidualBlocks() == 0) {
    r.message = "no usable times";
    return r;
  }
  ceres::Solver::Options so;
  so.linear_solver_type = ceres::DENSE_QR;
  so.logging_type = ceres::SILENT;
  so.minimizer_progress_to_stdout = false;
  so.max_num_iterations = 200;
  so.function_tolerance = 1e-12;
  so.parameter_tolerance = 1e-12;
  so.gradient_tolerance = 1e-14;
  so.num_threads = 1;
  ceres::Solver::Summary summary;
  ceres::Solve(so, &problem, &summary);
  r.params.assign(p, p + spec.num_params());
  r.converged = summary.IsSolutionUsable();
  r.message = summary.message;
  return r;
}

// The least-squares optimum, exact: the overlap model by its profile over w, the others by
// Ceres polished with the active-set NNLS.
FitResult least_squares(const ModelSpec& spec, const std::vector<Point>& points, const std::vector<double>& times,
                        const FitOptions& opts) {
  if (spec.overlap)
    if (auto pf = overlap_least_squares(spec, points, times)) {
      FitResult r;
      r.params = std::move(pf->params);
      r.converged = true;
      r.message = "exact least squares: a bounded search over w with the exact NNLS of the works at each w";
      return r;
    }
  FitResult r = solve_from(spec, points, times, opts, default_start(spec, points, times));
  if (r.converged) polish_linear(spec, points, times, opts, r.params);
  return r;
}

// A robust loss makes the objective non-convex (Cauchy; the overlap model's kink): Ceres from
// several starts, the best objective kept. The starts are the exact least-squares optimum, the
// least-squares works at w = 0, 1/2 and 1 (overlap), and the equal-share start.
FitResult robust_multistart(const ModelSpec& spec, const std::vector<Point>& points, const std::vector<double>& times,
                            const FitOptions& opts) {
  FitOptions ls = opts;
  ls.robust = Robust::none;
  std::vector<std::vector<double>> starts{default_start(spec, points, times)};
  if (FitResult r = least_squares(spec, points, times, ls); r.converged) starts.push_back(r.params);
  if (spec.overlap)
    for (double w : {0.0, 0.5, 1.0})
      if (auto pf = overlap_fit_at(spec, points, times, w)) starts.push_back(pf->params);
  FitResult best;
  double best_f = INFINITY;
  for (const auto& s : starts) {
    FitResult r = solve_from(spec, points, times, opts, s);
    if (!r.converged) continue;
    const double f = robust_objective(spec, points, times, opts, r.params);
    if (f < best_f) best_f = f, best = std::move(r);
  }
  return best;
}

}  // namespace

FitResult fit_model(const ModelSpec& spec, const std::vector<Point>& points, const std::vector<double>& times,
                    const FitOptions& opts) {
  quiet_ceres_logging();
  if (opts.robust == Robust::none) return least_squares(spec, points, times, opts);
  return robust_multistart(spec, points, times, opts);
}

double robust_objective(const ModelSpec& spec, const std::vector<Point>& points, const std::vector<double>& times,
                        const FitOptions& opts, const std::vector<double>& params) {
  std::unique_ptr<ceres::LossFunction> loss(make_loss(opts));
  double sum = 0;
  for (size_t j = 0; j < points.size(); ++j) {
    if (!std::isfinite(times[j]) || times[j] <= 0) continue;
    const double r = model_time(spec, params, points[j]) / times[j] - 1.0;
    double rho[3] = {r * r, 1, 0};
    if (loss) loss->Evaluate(r * r, rho);
    sum += rho[0];
  }
  return sum;
}

double loss_weight(const FitOptions& opts, double squared_residual) {
  std::unique_ptr<ceres::LossFunction> loss(make_loss(opts));
  if (!loss) return 1.0;
  double rho[3];
  loss->Evaluate(squared_residual, rho);
  return rho[1];
}

std::optional<Matrix> covariance_at(const ModelSpec& spec, const std::vector<Point>& points,
                                    const std::vector<double>& times, const std::vector<double>& params,
                                    const FitOptions& opts) {
  quiet_ceres_logging();
  const int np = spec.num_params();
  std::vector<double> p(params);
  ceres::Problem problem;
  build_problem(problem, p.data(), spec, points, times, opts);
  const int n = problem.NumResidualBlocks();
  if (n <= np) return std::nullopt;
  ceres::Covariance::Options co;
  co.algorithm_type = ceres::DENSE_SVD;  // detects rank deficiency instead of failing obscurely
  co.null_space_rank = 0;
  ceres::Covariance cov(co);
  std::vector<std::pair<const double*, const double*>> blocks{{p.data(), p.data()}};
  if (!cov.Compute(blocks, &problem)) return std::nullopt;
  std::vector<double> c(np * np);
  if (!cov.GetCovarianceBlock(p.data(), p.data(), c.data())) return std::nullopt;
  // Ceres gives (J^T J)^-1; scale by the residual variance to get parameter variances.
  double ss = 0;
  for (size_t j = 0; j < points.size(); ++j) {
    if (!std::isfinite(times[j]) || times[j] <= 0) continue;
    const double r = model_time(spec, params, points[j]) / times[j] - 1.0;
    ss += r * r;
  }
  const double s2 = ss / (n - np);
  Matrix m(np, std::vector<double>(np));
  for (int a = 0; a < np; ++a)
    for (int b = 0; b < np; ++b) m[a][b] = c[a * np + b] * s2;
  return m;
}

}  // namespace hpcsens::model
