// The real `hpcsens sweep` and `hpcsens fit` on the realistic emulated machine: a core-only sweep
// whose STREAM and clock are re-measured with scatter at every run. Memory bandwidth was not
// varied, so the fitted model must be the one-rate model with no memory sensitivity.
#include "sweep_cli_helpers.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace hpcsens::sweep {
namespace {

using namespace testing;

TEST(SweepCliRealistic, CoreOnlySweepWithMeasuredRateJitterFitsTheOneRateModel) {
  TempDir t;
  put(t.path() + "/spec.yaml", R"(job: {command: [mpirun, -np, 4, ./app]}
emulated: {W_cpu: 90, W_mem: 1500, T_io: 3, noise_pct: 1, mem_gbs: 100, seed: 5, ranks: 4,
           stream_jitter_pct: 1.5, clock_jitter_pct: 0.004, stream_clock_elasticity: 0.02}
knobs: {cpu_ghz: [1.2, 1.5, 1.8, 2.1, 2.4, 2.7, 3.0]}
repetitions: 3
seed: 9
)");
  const std::string out = t.path() + "/out";
  const auto r = run({kHpcsens, "sweep", t.path() + "/spec.yaml", "-o", out}, t.path(), 120);
  ASSERT_EQ(r.status, 0) << r.err;
  // The records carry what a real sweep measures: STREAM scattered around the truth.
  double lo = 1e9, hi = 0;
  for (const auto& e : fs::directory_iterator(out + "/records")) {
    std::ifstream in(e.path());
    const auto rec = json::parse(in);
    ASSERT_EQ(rec["emulated"], true);
    const double mem = rec["config"]["mem_gbs"];
    lo = std::min(lo, mem), hi = std::max(hi, mem);
  }
  EXPECT_GT(hi / lo, 1.03);  // the measured bandwidth moved by several percent ...
  std::ifstream min(out + "/model.json");
  ASSERT_TRUE(min.good()) << "hpcsens fit wrote no model:\n" << r.err;
  const auto model = json::parse(min);
  EXPECT_EQ(model["emulated"], true);
  EXPECT_EQ(model["model"], "cpu+fixed") << r.out;  // ... yet memory was not varied by design
  for (const auto& e : model["elasticities"]) EXPECT_NE(e["rate"], "mem_gbs") << model["sensitivity"];
  for (const auto& term : model["terms"]) EXPECT_NE(term["name"], "mem") << model["model"];
  // The core clock work is the truth's, within the noise (2 % of 1 sigma run noise over 21 runs).
  for (const auto& term : model["terms"])
    if (term["name"] == "cpu") EXPECT_NEAR(term["work"].get<double>(), 90, 90 * 0.05);
}

}  // namespace
}  // namespace hpcsens::sweep
