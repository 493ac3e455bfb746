// The node effect through the real `hpcsens fit`: records of a core-clock sweep whose
// repetitions ran on two nodes (config.node, as slurm-array tasks write it). The model JSON
// carries each node's mean residual and run count, and a node beyond 2x the same-node noise is
// flagged in the JSON, the notes and a warning. The records are synthetic (T = 12/f + 1 s),
// written here, not measured.
#include <gtest/gtest.h>

#include <cmath>

#include <nlohmann/json.hpp>

#include "record/run_record.h"
#include "tests/model/cli_fixture.h"

namespace hpcsens::model {
namespace {

class NodeEffectCli : public CliTest {
 protected:
  // 3 clocks x 4 repetitions, two on each node, +-0.5 % apart on one node; node1 `slow` slower.
  void write_records(double slow) {
  int i = 0;
  for (double f : {1.2, 1.8, 2.4})
    for (int rep = 0; rep < 4; ++rep) {
      const std::string node = rep % 2 ? "node1" : "node0";
      const double t_s = (12 / f + 1) * (node == "node1" ? 1 + slow : 1) * (rep < 2 ? 0.995 : 1.005);
      record::RunRecord r;
      r.job.command = {"srun", "./app"};
      r.job.nranks = 1;
      r.config = {{"cpu_ghz", f}, {"mem_gbs", 50.0}, {"label", "f" + std::to_string(f)},
                  {"sweep_point", static_cast<int>(f * 10)}, {"node", node}};
      r.timing.job_s = t_s;
      record::RankRecord rk;
      rk.wall_s = t_s;
      r.ranks.push_back(rk);
      file("recs/r" + std::to_string(i++) + ".json", record::to_json(r).dump());
    }
  }
};

TEST_F(NodeEffectCli, SlowNodeIsFlaggedWithItsMeanResidualAndCount) {
  write_records(0.08);
  const auto fit = run("fit " + path("recs") + " -o " + path("m.json"));
  ASSERT_EQ(fit.exit_status, 0) << fit.err;
  std::ifstream in(path("m.json"));
  const auto m = nlohmann::json::parse(in);
  const auto& ne = m["node_effects"];
  ASSERT_TRUE(ne.is_object()) << m.dump(1);
  EXPECT_EQ(ne["noise_from"], "same node and configuration");
  EXPECT_NEAR(ne["noise"].get<double>(), 0.005, 1e-4);
  EXPECT_NEAR(ne["threshold"].get<double>(), 0.01, 2e-4);
  ASSERT_EQ(ne["nodes"].size(), 2u);
  EXPECT_EQ(ne["nodes"][0]["node"], "node0");
  EXPECT_EQ(ne["nodes"][0]["runs"], 6);
  EXPECT_EQ(ne["nodes"][1]["runs"], 6);
  // The fit goes through the middle: node1 ~ +3.8 %, node0 ~ -3.8 %, both far beyond 1 %.
  EXPECT_NEAR(ne["nodes"][1]["mean_rel_resid"].get<double>(), 0.04 / 1.04, 0.005);
  EXPECT_NEAR(ne["nodes"][0]["mean_rel_resid"].get<double>(), -0.04 / 1.04, 0.005);
  EXPECT_EQ(ne["nodes"][1]["flagged"], true);
  EXPECT_NE(fit.out.find("(6 runs, FLAGGED)"), std::string::npos) << fit.out;
  EXPECT_NE(fit.out.find("node node1: its 6 run(s) sit +3.8"), std::string::npos) << fit.out;
}

TEST_F(NodeEffectCli, NodesWithinTheNoiseAreNotFlagged) {
  write_records(0.0);
  const auto fit = run("fit " + path("recs") + " -o " + path("m.json") + " --format json");
  ASSERT_EQ(fit.exit_status, 0) << fit.err;
  std::ifstream in(path("m.json"));
  const auto ne = nlohmann::json::parse(in)["node_effects"];
  for (const auto& n : ne["nodes"]) {
    EXPECT_EQ(n["flagged"], false) << ne.dump();
    EXPECT_LT(std::fabs(n["mean_rel_resid"].get<double>()), 0.001);
  }
  EXPECT_EQ(fit.out.find("FLAGGED"), std::string::npos);
}

}  // namespace
}  // namespace hpcsens::model
