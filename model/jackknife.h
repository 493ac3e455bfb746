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
// where the baseline is, by up to 8 d / D (a quadratic misfit). 6 d / D, combined in quadrature
// with the jackknife half-width, with the finite-difference reach below, is the smallest multiple
// that brought the measured coverage to 90 % for every family of bench/model_coverage_families.cpp
// (4 d / D: 84 % for a memory-only power law; 4 d / D without the reach: 62-99 %).
inline constexpr double kModelErrorSlope = 6.0;
// A local misfit that the fit's error does not show (a bandwidth knee near the top of the range,
// a power law): the interval reaches at least this multiple of the distance between the model's
// elasticity and the data's own one over the top step of the rate (top_step_elasticity).
inline constexpr double kFiniteDifferenceReach = 1.25;
// kModelErrorSlope x max_abs_err / ln(hi / lo): the model-error half-width of an elasticity.
double model_error_half(double max_abs_err, double lo, double hi);

// The data's own elasticity at the baseline b: d ln T / d ln R between b and the configuration with
// the next lower value of rate r whose other node rates (cpu_ghz, mem_gbs) are within 1 % of b's.
// NaN when there is none.
double top_step_elasticity(const std::vector<Point>& points, const Point& b, Rate r);

// A statistic's replicates over the usable leave-one-out fits.
std::vector<double> replicates(const std::vector<std::vector<double>>& loo_params,
                               const std::function<double(const std::vector<double>&)>& statistic);

// Number of usable leave-one-out fits.
int usable_fits(const std::vector<std::vector<double>>& loo_params);

}  // namespace hpcsens::model
