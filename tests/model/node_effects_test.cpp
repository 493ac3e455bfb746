// Node effects in the fit: each node's mean relative residual and run count, judged against
// the run-to-run noise (runs repeated on one node at one configuration, else repetitions).
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
}

// Two runs per node and point: node0 at 1.98/2.02 (noise 1 %), node1 at 2.18/2.22 (also 1 %).
// The model sits between the nodes at 2.1: node0 -4.76 %, node1 +4.76 %, both beyond 2 x 1 %.
TEST(NodeEffects, NodeBeyondTwiceTheSameNodeNoiseIsFlagged) {
  const std::vector<NodeRun> runs = {{"node0", 0, 1.98}, {"node0", 0, 2.02}, {"node1", 0, 2.18}, {"node1", 0, 2.22}};
  EXPECT_NEAR(same_node_noise(runs), (0.01 + 0.04 / 4.4) / 2, 1e-12);  // median of the two nodes
  const auto e = judge_node_effects(runs, {2.1}, /*repetition_noise=*/0.05);
  EXPECT_EQ(e.noise_from, "same node and configuration");
  EXPECT_NEAR(e.noise, (0.04 / 2) / 2.0, 1e-3);  // node0: (2.02-1.98)/(2*2.0)
  EXPECT_NEAR(e.threshold, 2 * e.noise, 1e-12);
  ASSERT_EQ(e.nodes.size(), 2u);
  EXPECT_NEAR(e.nodes[0].mean_rel_resid, -0.1 / 2.1, 1e-9);
  EXPECT_TRUE(e.nodes[0].flagged);
  EXPECT_TRUE(e.nodes[1].flagged);
  EXPECT_EQ(e.nodes[1].runs, 2);
  const auto w = node_effect_warnings(e);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_NE(w[1].find("node node1: its 2 run(s) sit +4.76% from the model"), std::string::npos) << w[1];
  EXPECT_NE(w[1].find("slower"), std::string::npos);
  const auto j = node_effects_json(e);
  EXPECT_EQ(j["nodes"][1]["node"], "node1");
  EXPECT_EQ(j["nodes"][1]["runs"], 2);
  EXPECT_EQ(j["nodes"][1]["flagged"], true);
  EXPECT_NEAR(j["threshold"].get<double>(), 0.02, 1e-3);
  EXPECT_NE(node_effects_note(e, 0).find("node1 +4.76% (2 runs, FLAGGED)"), std::string::npos) << node_effects_note(e, 0);
}

// The same residuals within the noise: nothing flagged. One run per node and point: the
// repetition noise is used, and says so.
TEST(NodeEffects, WithinTheNoiseNothingIsFlagged) {
  const std::vector<NodeRun> runs = {{"node0", 0, 2.09}, {"node1", 0, 2.11}};
  const auto e = judge_node_effects(runs, {2.1}, 0.01);
  EXPECT_EQ(e.noise_from, "repetitions");
  EXPECT_FALSE(e.nodes[0].flagged);
  EXPECT_FALSE(e.nodes[1].flagged);
  EXPECT_TRUE(node_effect_warnings(e).empty());
  EXPECT_EQ(node_effects_note(e, 1),
            "node effect, mean (observed - model) / model of each node's runs: node0 -0.48% (1 run) node1 +0.48% "
            "(1 run); flagged above 2.00% (2x the run-to-run noise 1.00% from repetitions); 1 run(s) name no node");
}

TEST(NodeEffects, NoNoiseEstimateMeansNotJudged) {
  const auto e = judge_node_effects({{"node0", 0, 2.0}, {"node1", 0, 3.0}}, {2.5}, NAN);
  EXPECT_FALSE(e.nodes[0].flagged);
  EXPECT_TRUE(node_effects_json(e)["threshold"].is_null());
  EXPECT_NE(node_effects_note(e, 0).find("not judged: no repeated runs"), std::string::npos);
}

TEST(NodeEffects, RecordsWithoutNodesSayNotExamined) {
  const auto e = judge_node_effects({}, {1.0}, 0.01);
  EXPECT_EQ(node_effects_note(e, 3),
            "node effects were not examined: the records name no node (slurm-array sweeps record config.node)");
  EXPECT_TRUE(node_effects_json(e).is_null());
}

}  // namespace
}  // namespace hpcsens::model
