#pragma once
// Can the sweep identify the model's terms at all? Checks the design (the rates), not the
// times: enough distinct configurations, every rate varied enough, no two rates varied
// together. Messages say what to add to the sweep. Pure functions.
#include <string>
#include <vector>

#include "model/model_spec.h"

namespace hpcsens::model {

struct IdentifiabilityReport {
  std::vector<std::string> errors;    // the model cannot be fitted meaningfully
  std::vector<std::string> warnings;  // it can, but uncertainty will be large
  double condition_number = 0;        // of the column-normalised design matrix
  int distinct_configs = 0;
  bool ok() const { return errors.empty(); }
};

// Thresholds (documented in docs/methodology.md).
inline constexpr double kMinRateRatio = 1.1;         // max/min of a rate below this: warning
inline constexpr double kCollinearCorrelation = 0.99; // |corr| of two basis columns above: error
inline constexpr double kConditionWarn = 100.0;
inline constexpr double kConditionError = 1e4;

IdentifiabilityReport check_identifiability(const ModelSpec& spec, const std::vector<Point>& points);
// Throws InputError (exit 2) listing every error of the report.
void require_identifiable(const ModelSpec& spec, const IdentifiabilityReport& rep);

}  // namespace hpcsens::model
