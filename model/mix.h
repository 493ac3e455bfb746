#pragma once
// Workload mixes: several applications, each with its model and its share of node-hours on the
// baseline, projected onto candidate systems. The workload speed-up on a candidate is the
// weighted harmonic mean of the applications' speed-ups, S = 1 / sum_i (w_i / S_i): the same
// node-hours of work run that much faster (docs/methodology.md, "Workload mixes").
#include <optional>
#include <string>
#include <vector>

#include "model/analysis.h"
#include "model/predict.h"
#include "model/predict_answer.h"

namespace hpcsens::model {

inline constexpr const char* kMixSchema = "hpcsens.mix.v1";
inline constexpr const char* kMixAssumption =
    "a candidate runs the same cycles of work per unit of work as the measured machine (same microarchitecture and "
    "compiler); a system's cpu_work_factor overrides this";

struct MixApp {
  std::string name, model_path, where;  // where: "mix.yaml:3"
  double weight = 0;                    // normalised: the weights sum to 1
  ModelReport model;
};

struct Mix {
  std::string path;
  std::vector<MixApp> apps;
  double baseline_nodes = 1;  // nodes of the measured machine, for throughput
  bool weights_normalised = false;  // the file's weights did not sum to 1
  std::vector<std::string> warnings;  // about the mix itself (two applications sharing one model file)
};

// YAML: `applications:` list of {name, model, weight}; optional `baseline_nodes`, `description`.
// Model paths are relative to the mix file. Errors name file, line and field.
Mix load_mix(const std::string& path);
Mix parse_mix(const std::string& yaml_text, const std::string& path);

struct MixAppResult {
  std::string name;
  double weight = 0;
  Prediction pred;
  std::string verdict;
  // From the application's measured power model at the candidate's clocks (model/mix_energy.cpp):
  // one job's mean power (W, over the nodes its sweep measured) and energy (J).
  std::optional<double> power_w, energy_j;
};

// Where a mix's per-watt figures come from: the applications' power models fitted to measured
// (or emulated) energy, the SYSTEMS file's nominal power_w, or nothing.
enum class PowerBasis { measured, nominal, none };
const char* power_basis_name(PowerBasis b);  // "measured power model" | "nominal, from SYSTEMS file" | "none"

struct MixSystem {
  SystemSpec system;
  std::vector<MixAppResult> apps;
  double speedup = 0, speedup_low = 0, speedup_high = 0;
  std::optional<double> throughput, per_price, per_watt;
  // Measured basis: the mean power per node running the mix (W; the applications' powers weighted
  // by their node-hours on this system) and the mix's energy for the same work over the
  // baseline's (the applications' energy ratios weighted by their node-hour shares).
  std::optional<double> node_power_w, energy_ratio;
  std::vector<std::string> warnings;
  // The weakest of its applications' projections: the worst verdict, the largest extrapolation.
  std::string verdict = "ok";
  double extrapolation = 1;
};

// What the systems are ranked by (`--rank-by`): workload speed-up per node, throughput (speed-up x
// nodes / baseline_nodes), throughput per price, throughput per watt.
enum class RankBy { speedup, throughput, per_price, per_watt };
inline constexpr RankBy kAllRankBy[] = {RankBy::speedup, RankBy::throughput, RankBy::per_price, RankBy::per_watt};
const char* rank_by_name(RankBy r);
// "speedup" | "throughput" | "per-price" | "per-watt"; anything else: InputError listing them.
RankBy parse_rank_by(const std::string& name);
// The criterion's value divided by the speed-up (1, nodes / baseline_nodes, ... / price, ... /
// power_w): the speed-up interval times it is the criterion's interval. Empty when the system
// lacks what the criterion needs (nodes, price, power_w).
std::optional<double> rank_factor(const MixSystem& s, RankBy r, double baseline_nodes);

// One warning text and the systems it applies to (said once, not once per system).
struct GroupedWarning {
  std::string text;
  std::vector<std::string> systems;
  std::vector<std::string> applications;  // empty for a warning about the system itself
};

struct MixResult {
  std::vector<MixSystem> systems;  // best first by rank_by
  RankBy rank_by = RankBy::speedup;
  std::vector<std::pair<RankBy, std::string>> winners;  // best system per criterion every system has
  std::vector<std::string> overlaps;  // adjacent systems whose intervals of rank_by overlap
  std::vector<GroupedWarning> warnings;  // the systems' warnings, each text once
  bool emulated = false;
  PowerBasis power_basis = PowerBasis::none;
  std::string power_note;  // how the per-watt figures were made, or why there are none
  const Mix* mix = nullptr;
  Answer answer;  // built once by evaluate_mix (mix_answer); every format renders it
};

// The mix's answer: the winner under rank_by, qualified by its weakest projection, the caveats
// and the advice (model/mix_answer.cpp).
Answer mix_answer(const MixResult& r);
// "many-slow/qe, few-fast/qe": the system/application pairs whose prediction is extrapolated.
std::vector<std::string> extrapolated_pairs(const MixResult& r);

// Weighted harmonic mean of speed-ups (weights sum to 1).
double workload_speedup(const std::vector<double>& weights, const std::vector<double>& speedups);

// Ranks by `rank_by`; without one, by throughput when every system gives nodes, else by speed-up.
// A criterion some system cannot give is InputError naming the system and what it lacks.
MixResult evaluate_mix(const Mix& mix, const std::vector<SystemSpec>& systems,
                       std::optional<RankBy> rank_by = std::nullopt);

// Sets power_basis, power_note and each system's per_watt (and, from measured power, its
// applications' power and energy, node_power_w and energy_ratio); model/mix_energy.cpp.
void mix_power(const Mix& mix, MixResult& r);

// format: table | md | json | csv.
std::string render_mix(const MixResult& r, const std::string& format);

}  // namespace hpcsens::model
