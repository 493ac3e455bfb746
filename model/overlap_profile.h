#pragma once
// The exact least-squares optimum of the overlap model (docs/methodology.md, "Fit"): for a fixed
// overlap fraction w the model io + max(P_cpu, P_mem) + (1 - w) min(P_cpu, P_mem) is linear in the
// works inside each "regime" (which part is the larger at each configuration), and the regime of
// configuration j only depends on the ratio W_cpu / W_mem against x_mem,j / x_cpu,j. Sorting the
// configurations by that ratio leaves n + 1 regimes and n boundaries between them; the exact
// non-negative least squares of each (from prefix sums of the normal equations) gives the global
// optimum at that w. A bounded 1-D search over w in [0, 1] (a grid, then golden section around its
// best point) finishes. Pure functions.
#include <optional>
#include <vector>

#include "model/model_spec.h"

namespace hpcsens::model {

struct ProfileFit {
  std::vector<double> params;  // works in spec.terms order, then w
  double objective = 0;        // sum over configurations of ((T_pred - T) / T)^2
};

// The global least-squares optimum over the works at one fixed w. Nothing when the spec is not an
// overlap model with cpu and mem terms, or no time is usable.
std::optional<ProfileFit> overlap_fit_at(const ModelSpec& spec, const std::vector<Point>& points,
                                         const std::vector<double>& times, double w);

// The least-squares optimum over the works and w in [0, 1].
std::optional<ProfileFit> overlap_least_squares(const ModelSpec& spec, const std::vector<Point>& points,
                                                const std::vector<double>& times);

// sum_j ((model_time_j - T_j) / T_j)^2 over the usable times (finite, > 0).
double squared_relative_error(const ModelSpec& spec, const std::vector<double>& params,
                              const std::vector<Point>& points, const std::vector<double>& times);

}  // namespace hpcsens::model
