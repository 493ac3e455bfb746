#pragma once
// Exact non-negative linear least squares, min |A x - b|^2 subject to x >= 0, by the active-set
// method of Lawson and Hanson ("Solving Least Squares Problems", 1974, ch. 23). The fitter uses it
// to polish Ceres' answer for the models that are linear in their works: Ceres' bounded
// trust-region steps can stop short of the optimum when a work sits at its bound 0.
#include <optional>
#include <vector>

namespace hpcsens::model {

// `rows` holds A row by row (all rows of equal length p). `start` is a feasible point (x >= 0,
// e.g. Ceres' solution) whose positive entries seed the free set; empty starts from 0. Returns
// nothing when a free-set subproblem is singular (terms not separable): keep the start then.
std::optional<std::vector<double>> nonneg_least_squares(const std::vector<std::vector<double>>& rows,
                                                        const std::vector<double>& b, std::vector<double> start);

}  // namespace hpcsens::model
