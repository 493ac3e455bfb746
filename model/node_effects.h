#pragma once
// Whether the node a run ran on shows in its time: the mean relative residual of each node's
// runs against the fitted model, (observed - model) / model. Runs from a slurm-array sweep name
// their node (config.node); the model is fitted across nodes, so a node whose runs sit
// consistently above or below it is slower or faster than the rest. Pure functions.
#include <string>
#include <vector>

#include "model/dataset.h"

namespace hpcsens::model {

struct NodeEffect {
  std::string node;
  int runs = 0;
  double mean_rel_resid = 0;  // mean of (observed - model) / model over the node's runs
};

// One entry per node, in order of first appearance. `predicted` is aligned with the points.
std::vector<NodeEffect> node_effects(const std::vector<NodeRun>& runs, const std::vector<double>& predicted);

// The line `hpcsens fit` prints: each node's effect, or why node effects were not examined.
std::string node_effects_note(const std::vector<NodeEffect>& effects, std::size_t runs_without_node);

}  // namespace hpcsens::model
