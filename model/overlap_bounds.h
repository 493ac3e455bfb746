#pragma once
// Bounds on the true work when components may overlap anywhere between not at all and fully
// (design.md, "Overlap bounds"). For every configuration j:
//   max_k W_k x_k(j) <= T_j <= sum_k W_k x_k(j),  W >= 0,
// written as linear constraints (one row per k for the max) and solved with GLPK.
// Measured times are noisy, so T_j is widened by a relative slack: W_k x_k(j) <= T_j (1 + s)
// and sum_k W_k x_k(j) >= T_j (1 - s).
#include <optional>
#include <string>
#include <vector>

#include "model/model_spec.h"

namespace hpcsens::model {

inline constexpr double kDefaultBoundsSlack = 0.02;

struct TermBounds {
  double lo = 0, hi = 0;
  // "No component can take longer than the whole run": min_j T_j (1 + s) / x_k(j).
  double closed_form_hi = 0;
};

struct OverlapBounds {
  bool feasible = false;
  double slack = kDefaultBoundsSlack;  // the slack actually used (widened if the data needed it)
  std::vector<TermBounds> terms;       // in `terms` order
  std::string unavailable;             // GLPK failed (message); then feasible is false
};

// Interval of every W_k. If the set is empty at `slack` (noise larger than the slack), the
// slack is doubled up to 32 % and the used value reported.
OverlapBounds overlap_bounds(const std::vector<Term>& terms, const std::vector<Point>& points,
                             double slack = kDefaultBoundsSlack);

// Range of the time at a new configuration over every W consistent with the measurements
// (same constraints): lo = min over W of max_k W_k x_k, hi = max over W of sum_k W_k x_k.
// Throws GlpkError (model/glpk_guard.h) when GLPK fails.
struct TimeRange {
  double lo = 0, hi = 0;
};
std::optional<TimeRange> overlap_time_range(const std::vector<Term>& terms, const std::vector<Point>& points,
                                            double slack, double cpu_ghz, double mem_gbs,
                                            std::optional<double> lat_ns);
// The same at a configuration given with all its rates (the network's included).
std::optional<TimeRange> overlap_time_range(const std::vector<Term>& terms, const std::vector<Point>& points,
                                            double slack, const Point& at);

}  // namespace hpcsens::model
