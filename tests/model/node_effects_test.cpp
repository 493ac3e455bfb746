#include <gtest/gtest.h>

#include "model/node_effects.h"

namespace hpcsens::model {
namespace {

// node1 runs 10 % above the model at both points, node0 exactly on it.
TEST(NodeEffects, MeanRelativeResidualPerNodeInFirstSeenOrder) {
  const auto e = node_effects({{"node1", 0, 2.2}, {"node0", 0, 2.0}, {"node1", 1, 4.4}, {"node0", 1, 4.0}}, {2.0, 4.0});
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].node, "node1");
  EXPECT_EQ(e[0].runs, 2);
  EXPECT_NEAR(e[0].mean_rel_resid, 0.10, 1e-12);
  EXPECT_EQ(e[1].node, "node0");
  EXPECT_NEAR(e[1].mean_rel_resid, 0.0, 1e-12);
  EXPECT_EQ(node_effects_note(e, 1),
            "node effect, mean (observed - model) / model of each node's runs: node1 +10.00% (2 runs) node0 +0.00% "
            "(2 runs); 1 run(s) name no node");
}

TEST(NodeEffects, RecordsWithoutNodesSayNotExamined) {
  EXPECT_EQ(node_effects_note(node_effects({}, {1.0}), 3),
            "node effects were not examined: the records name no node (slurm-array sweeps record config.node)");
}

}  // namespace
}  // namespace hpcsens::model
