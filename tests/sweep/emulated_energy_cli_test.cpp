// The real `hpcsens sweep` on the emulated launcher with a power truth, then the real `hpcsens fit`:
// every sweep point's record, results.csv and the summary carry its energy (labelled EMULATED),
// and the fit's energy decisions recover the truth's clocks. The truth's optimum is computed here
// from the truth's formulas (T = W_cpu/f + W_mem/mem + T_io; P = static + dyn x f/f_max x
// (V(f)/V_max)^2, V linear from v_min at the lowest to v_max at the highest clock), not by hpcsens.
#include "sweep_cli_helpers.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace hpcsens::sweep {
namespace {

using namespace testing;

constexpr double kWcpu = 80, kWmem = 1000, kMem = 100, kTio = 2;
constexpr double kStatic = 45, kDyn = 120, kVmin = 0.7, kVmax = 1.1, kFlo = 1.2, kFhi = 3.0, kStep = 0.2;

const char* kSpec = R"(job: {command: [mpirun, -np, 4, ./app]}
emulated: {W_cpu: 80, W_mem: 1000, T_io: 2, mem_gbs: 100, noise_pct: 1, seed: 7, ranks: 4,
           clock_jitter_pct: 0.004,
           power: {static_w: 45, core: {dynamic_w: 120, v_min: 0.7, v_max: 1.1}, noise_pct: 1,
                   max_energy_range_uj: 2000000000}}
knobs: {cpu_ghz: [1.2, 1.4, 1.6, 1.8, 2.0, 2.2, 2.4, 2.6, 2.8, 3.0]}
repetitions: 3
seed: 9
)";

double truth_time(double f) { return kWcpu / f + kWmem / kMem + kTio; }
double truth_power(double f) {
  const double v = kVmin + (kVmax - kVmin) * (f - kFlo) / (kFhi - kFlo);
  return kStatic + kDyn * (f / kFhi) * (v / kVmax) * (v / kVmax);
}
double truth_energy(double f) { return truth_power(f) * truth_time(f); }

std::vector<double> grid() {
  std::vector<double> g;
  for (double f = kFlo; f <= kFhi + 1e-9; f += kStep) g.push_back(std::round(f * 10) / 10);
  return g;
}
// The grid clock minimising cost(f) among those with T(f) <= (1 + slowdown) T(f_max).
template <class F>
double truth_best(F cost, double slowdown = 1e9) {
  double best = 0, best_cost = 1e300;
  for (double f : grid())
    if (truth_time(f) <= (1 + slowdown) * truth_time(kFhi) && cost(f) < best_cost) best = f, best_cost = cost(f);
  return best;
}

json sweep_records(const std::string& out) {
  json recs = json::array();
  for (const auto& e : fs::directory_iterator(out + "/records")) {
    std::ifstream in(e.path());
    recs.push_back(json::parse(in));
  }
  return recs;
}

TEST(SweepCliEnergy, TruthsOwnOptimaAreInsideTheGridNotAtItsEdge) {
  // The test below means something only if the truth's answers are distinct clocks within the grid.
  EXPECT_DOUBLE_EQ(truth_best(truth_energy), 1.6);
  EXPECT_DOUBLE_EQ(truth_best(truth_energy, 0.12), 2.6);  // 2.4 is 17 % slower than 3.0 GHz
  EXPECT_DOUBLE_EQ(truth_best([](double f) { return truth_energy(f) * truth_time(f); }), 2.6);
  EXPECT_DOUBLE_EQ(truth_best([](double f) { return truth_energy(f) * truth_time(f) * truth_time(f); }), 3.0);
}

TEST(SweepCliEnergy, EveryPointCarriesItsEmulatedEnergyAndTheFitRecoversTheTruthsClocks) {
  TempDir t;
  put(t.path() + "/spec.yaml", kSpec);
  const std::string out = t.path() + "/out";
  const auto r = run({kHpcsens, "sweep", t.path() + "/spec.yaml", "-o", out}, t.path(), 300);
  ASSERT_EQ(r.status, 0) << r.err;
  const json recs = sweep_records(out);
  ASSERT_EQ(recs.size(), 30u);
  for (const auto& rec : recs) {
    const json& e = rec["energy"];
    ASSERT_EQ(e["available"], true) << e.dump();
    EXPECT_EQ(e["source"], "emulated");
    const double w = rec["config"]["emulated_truth"]["power"]["run_w"]["package"];
    const double f = rec["config"]["emulated_truth"]["cpu_ghz"];
    EXPECT_NEAR(w, truth_power(f), truth_power(f) * 0.06);  // 1 % power scatter: 6 sigma
    EXPECT_NEAR(e["nodes"][0]["joules_by_domain"]["package"].get<double>(), w * rec["timing"]["job_s"].get<double>(), 1e-5);
  }
  EXPECT_NE(r.out.find("energy: EMULATED"), std::string::npos) << r.out;
  EXPECT_NE(get(out + "/results.csv").find(",energy_j,mean_w,energy_source\n"), std::string::npos);
  EXPECT_NE(get(out + "/results.csv").find(",emulated\n"), std::string::npos);

  const auto fit = run({kHpcsens, "fit", out + "/records", "--max-slowdown", "12%", "--format", "json"}, t.path(), 120);
  ASSERT_EQ(fit.status, 0) << fit.err;
  const json model = json::parse(fit.out);
  ASSERT_TRUE(model.contains("energy")) << "hpcsens fit wrote no energy object";
  const json& en = model["energy"];
  ASSERT_EQ(en["available"], true) << en.dump();
  const auto check = [&](const char* which, double truth_f) {
    const json& d = en["decisions"][which];
    const double f = d["cpu_ghz"];
    EXPECT_LE(std::abs(f - truth_f), kStep + 1e-3) << which << ": recovered " << f << " GHz, truth " << truth_f;
    // The interval of the chosen configuration's energy and time covers the truth there.
    const double fg = std::round(f * 5) / 5;  // the grid clock it measured (0.004 % clock jitter)
    EXPECT_LE(d["energy_low"].get<double>(), truth_energy(fg)) << which << " " << d.dump();
    EXPECT_GE(d["energy_high"].get<double>(), truth_energy(fg)) << which << " " << d.dump();
    EXPECT_LE(d["time_low"].get<double>(), truth_time(fg)) << which << " " << d.dump();
    EXPECT_GE(d["time_high"].get<double>(), truth_time(fg)) << which << " " << d.dump();
    std::printf("%s: recovered %.3f GHz (truth %.1f), E %.1f J [%.1f, %.1f] (truth %.1f)\n", which, f, truth_f,
                d["energy_j"].get<double>(), d["energy_low"].get<double>(), d["energy_high"].get<double>(),
                truth_energy(fg));
  };
  check("energy_optimal", truth_best(truth_energy));
  check("within_slowdown", truth_best(truth_energy, 0.12));
  check("edp", truth_best([](double f) { return truth_energy(f) * truth_time(f); }));
  check("ed2p", truth_best([](double f) { return truth_energy(f) * truth_time(f) * truth_time(f); }));
}

TEST(SweepCliEnergy, ABadPowerFieldExits2NamingFileLineAndField) {
  TempDir t;
  put(t.path() + "/spec.yaml", R"(emulated: {W_cpu: 80, W_mem: 1000, T_io: 2, mem_gbs: 100,
  power: {static_w: 45, core: {dynamic_w: 120, v_min: 1.3}}}
knobs: {cpu_ghz: [1.2, 3.0]}
)");
  const auto r = run({kHpcsens, "sweep", t.path() + "/spec.yaml", "-o", t.path() + "/out"}, t.path(), 60);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find(t.path() + "/spec.yaml:2: emulated.power.core.v_min: must not be above v_max"), std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace hpcsens::sweep
