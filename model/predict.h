#pragma once
// Projected run time on a configuration or candidate system, with an interval from the fit
// uncertainty (stderr propagation, 95 %) and the wider overlap interval (LP over every work
// vector consistent with the measurements).
#include <optional>
#include <string>
#include <vector>

#include "model/analysis.h"

namespace hpcsens::model {

struct SystemSpec {
  std::string name;
  double cpu_ghz = 0, mem_gbs = 0;
  std::optional<double> lat_ns;
  std::string where;  // "file:line" for messages
};

struct Prediction {
  SystemSpec system;
  double predicted_s = 0;
  double fit_low_s = 0, fit_high_s = 0;          // predicted -/+ 1.96 sigma from the covariance
  std::optional<double> overlap_low_s, overlap_high_s;  // LP range (absent when infeasible)
  double low_s = 0, high_s = 0;                  // the union of both intervals
  double speedup = 0;                            // baseline measured time / predicted
  std::vector<std::string> warnings;
};

// Throws InputError when the model needs a rate the system does not give (lat_ns).
Prediction predict(const ModelReport& model, const SystemSpec& sys);

// YAML: a mapping with a `systems:` list, a list, or one mapping; each with name, cpu_ghz,
// mem_gbs and optional lat_ns. Errors name file, line and field.
std::vector<SystemSpec> load_systems(const std::string& path);
std::vector<SystemSpec> parse_systems(const std::string& yaml_text, const std::string& path);

// Throws InputError naming the later system's file, line and field 'name' when two share a name.
void check_unique_names(const std::vector<SystemSpec>& systems);

// Fastest first.
void rank_predictions(std::vector<Prediction>& preds);

}  // namespace hpcsens::model
