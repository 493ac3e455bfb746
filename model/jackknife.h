#pragma once
// Intervals that do not assume the model is right: the jackknife over configurations, from the
// leave-one-out fits LOOCV already computed (Efron & Tibshirani, "An Introduction to the
// Bootstrap", 1993, ch. 11). A model that misses part of how the code scales fits each subset
// differently, so its jackknife spread grows where the covariance of a model assumed right stays
// narrow. Pure functions (docs/methodology.md, "Uncertainty").
#include <functional>
#include <vector>

#include "model/fitter.h"

namespace hpcsens::model {

// Jackknife variance of a statistic from its replicates theta_(i) (NaN ones skipped):
// (n - 1) / n x sum (theta_(i) - mean)^2. NaN with fewer than 3 replicates.
double jackknife_variance(const std::vector<double>& replicates);

// Jackknife covariance of the parameter vector from the leave-one-out fits (empty ones skipped).
// Empty when fewer than 3 fits are usable.
Matrix jackknife_covariance(const std::vector<std::vector<double>>& loo_params);

// Half-width multiplier of a 95 % jackknife interval with n usable replicates: Student's t with
// n - 1 degrees of freedom (the jackknife variance has about n - 1).
double jackknife_t(int n);

// The jackknife measures how much the fit moves between subsets, not how far a model that cannot
// describe the code is from it (a bias). A misfit of amplitude d (the largest relative error)
// across a log-range D of a rate can tilt the local slope d ln T / d ln R at the end of the range,
// where the baseline is, by up to 8 d / D (a quadratic misfit); half of that, combined in
// quadrature with the jackknife half-width, brought the measured coverage on misspecified truths
// from 74 % to over 90 % (bench/model_coverage.cpp, docs/methodology.md).
inline constexpr double kModelErrorSlope = 4.0;
// kModelErrorSlope x max_abs_err / ln(hi / lo): the model-error half-width of an elasticity.
double model_error_half(double max_abs_err, double lo, double hi);

// A statistic's replicates over the usable leave-one-out fits.
std::vector<double> replicates(const std::vector<std::vector<double>>& loo_params,
                               const std::function<double(const std::vector<double>&)>& statistic);

// Number of usable leave-one-out fits.
int usable_fits(const std::vector<std::vector<double>>& loo_params);

}  // namespace hpcsens::model
