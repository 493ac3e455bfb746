#pragma once
// Non-negative, relative-residual least squares fit of a sensitivity model with Ceres.
// This is the only translation unit that includes Ceres (it is slow to compile).
#include <optional>
#include <string>
#include <vector>

#include "model/model_spec.h"

namespace hpcsens::model {

enum class Robust { none, huber, cauchy };
// "none", "huber", "cauchy"; throws InputError otherwise.
Robust parse_robust(const std::string& s);
const char* robust_name(Robust r);

struct FitOptions {
  Robust robust = Robust::none;
  // Scale of the robust loss in relative-residual units: residuals well above 5 % are
  // treated as outliers, ordinary run-to-run noise (about 1 %) is not.
  double robust_scale = 0.05;
};

struct FitResult {
  std::vector<double> params;  // works in spec.terms order, then w (overlap variant)
  bool converged = false;
  std::string message;
};

// Minimises sum_j rho(((T_pred,j - T_j) / T_j)^2) with W >= 0 (and 0 <= w <= 1), to its global
// optimum: without a robust loss exactly (the linear models by NNLS, overlap by a bounded search
// over w with the exact NNLS of the works at each w); with one, by Ceres from several starts.
// `times` is aligned with `points` (the points' own time_s is ignored), so per-rank
// fits reuse the configuration rates.
FitResult fit_model(const ModelSpec& spec, const std::vector<Point>& points, const std::vector<double>& times,
                    const FitOptions& opts);

// The objective fit_model minimises, sum_j rho(r_j^2) (rho(s) = s without a robust loss, so then
// the sum of squared relative residuals): to compare fits, e.g. against an independent search.
double robust_objective(const ModelSpec& spec, const std::vector<Point>& points, const std::vector<double>& times,
                        const FitOptions& opts, const std::vector<double>& params);

// The weight rho'(s) the loss gives a squared relative residual s at the solution (1 without a
// robust loss): what iteratively reweighted least squares would use, for the closed-form LOOCV.
double loss_weight(const FitOptions& opts, double squared_residual);

using Matrix = std::vector<std::vector<double>>;

// Parameter covariance from ceres::Covariance, scaled by the residual variance
// sum r^2 / (n - p). Empty when the Jacobian is rank-deficient (then use the bootstrap).
std::optional<Matrix> covariance_at(const ModelSpec& spec, const std::vector<Point>& points,
                                    const std::vector<double>& times, const std::vector<double>& params,
                                    const FitOptions& opts);

}  // namespace hpcsens::model
