#pragma once
// Refit-based checks: leave-one-out cross-validation (whose refits also give the jackknife
// intervals) and the residual bootstrap used when the Ceres covariance is unavailable
// (rank-deficient Jacobian, parameters on a bound).
#include <cstddef>
#include <vector>

#include "model/fitter.h"

namespace hpcsens::model {

// Up to this many configurations every left-out configuration gets its own refit. Above it, the
// leave-one-out fits come from the full fit in closed form, theta_(i) = theta - A^-1 j_i w_i r_i /
// (1 - h_ii) (A = J'WJ over the parameters off their bounds, h_ii the leverage): exact for least
// squares with a fixed active set, one Gauss-Newton step for the overlap model and robust losses.
// N refits of N points grow as N^2 (9.8 s at 1,000); the closed form is O(N).
inline constexpr std::size_t kExactLooMaxPoints = 100;

struct LeaveOneOut {
  std::vector<double> err;                  // relative error of each point predicted without it (NaN: failed)
  std::vector<std::vector<double>> params;  // the fit without point i (empty: failed or not usable)
  bool closed_form = false;                 // from the full fit (above kExactLooMaxPoints), not refits
};

// `params` is the fit to all points (used by the closed form; the refits start from scratch).
LeaveOneOut leave_one_out(const ModelSpec& spec, const std::vector<Point>& points, const std::vector<double>& times,
                          const FitOptions& opts, const std::vector<double>& params);

// Relative error of each point predicted by a fit on all the other points (NaN if that fit failed).
std::vector<double> loocv_errors(const ModelSpec& spec, const std::vector<Point>& points,
                                 const std::vector<double>& times, const FitOptions& opts);

// Parameter covariance from `samples` refits on times = predicted x (1 + resampled relative
// residual). Deterministic: fixed seed.
Matrix bootstrap_covariance(const ModelSpec& spec, const std::vector<Point>& points,
                            const std::vector<double>& times, const std::vector<double>& params,
                            const FitOptions& opts, int samples = 200, unsigned seed = 12345);

}  // namespace hpcsens::model
