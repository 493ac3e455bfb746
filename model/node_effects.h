#pragma once
// Whether the node a run ran on shows in its time: the mean relative residual of each node's
// runs against the fitted model, (observed - model) / model. Runs from a slurm-array sweep name
// their node (config.node); the model is fitted across nodes, so a node whose runs sit
// consistently above or below it is slower or faster than the rest. A node is flagged when its
// mean residual exceeds kNodeEffectNoiseFactor x the run-to-run noise. Pure functions.
#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/dataset.h"

namespace hpcsens::model {

inline constexpr double kNodeEffectNoiseFactor = 2;

struct NodeEffect {
  std::string node;
  int runs = 0;
  double mean_rel_resid = 0;  // mean of (observed - model) / model over the node's runs
  bool flagged = false;       // |mean_rel_resid| > threshold
};

struct NodeEffects {
  std::vector<NodeEffect> nodes;  // in order of first appearance; empty: no run names its node
  double noise = NAN;             // relative run-to-run noise the effects are judged against
  std::string noise_from;         // "same node and configuration", "repetitions", or "" (none known)
  double threshold = NAN;         // kNodeEffectNoiseFactor x noise
};

// One entry per node, in order of first appearance. `predicted` is aligned with the points.
std::vector<NodeEffect> node_effects(const std::vector<NodeRun>& runs, const std::vector<double>& predicted);

// Noise free of any node effect: the median, over (configuration, node) pairs with two or more
// runs, of half their relative time range. NaN when no such pair exists.
double same_node_noise(const std::vector<NodeRun>& runs);

// The effects judged against the same-node noise, else `repetition_noise` (which a node
// effect inflates when repetitions ran on different nodes), else not judged.
NodeEffects judge_node_effects(const std::vector<NodeRun>& runs, const std::vector<double>& predicted,
                               double repetition_noise);

// The line `hpcsens fit` prints: each node's effect, or why node effects were not examined.
std::string node_effects_note(const NodeEffects& e, std::size_t runs_without_node);
// One warning per flagged node.
std::vector<std::string> node_effect_warnings(const NodeEffects& e);
// The model JSON's `node_effects` (null when no run names its node).
nlohmann::json node_effects_json(const NodeEffects& e);

}  // namespace hpcsens::model
