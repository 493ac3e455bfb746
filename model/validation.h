#pragma once
// Refit-based checks: leave-one-out cross-validation and the residual bootstrap used when
// the Ceres covariance is unavailable (rank-deficient Jacobian, parameters on a bound).
#include <vector>

#include "model/fitter.h"

namespace hpcsens::model {

// Relative error of each point predicted by a fit on all the other points (NaN if that fit failed).
std::vector<double> loocv_errors(const ModelSpec& spec, const std::vector<Point>& points,
                                 const std::vector<double>& times, const FitOptions& opts);

// Parameter covariance from `samples` refits on times = predicted x (1 + resampled relative
// residual). Deterministic: fixed seed.
Matrix bootstrap_covariance(const ModelSpec& spec, const std::vector<Point>& points,
                            const std::vector<double>& times, const std::vector<double>& params,
                            const FitOptions& opts, int samples = 200, unsigned seed = 12345);

}  // namespace hpcsens::model
