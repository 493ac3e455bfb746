// Speed of the energy part of `hpcsens fit` (prints figures; target: under 5 ms for a
// 100-configuration sweep): the power model with its 100 leave-one-out refits, then E = P x T,
// intervals and the four decisions over the 100 configurations. The time model is fitted once to
// generated data (10 core x 10 uncore clocks, 1 % noise) before timing.
#include <benchmark/benchmark.h>

#include <cmath>
#include <random>

#include "model/analysis.h"
#include "model/energy_analysis.h"

namespace hm = hpcsens::model;

namespace {

const hm::ModelReport& sweep100() {
  static const hm::ModelReport rep = [] {
    std::mt19937 rng(1);
    std::normal_distribution<double> z(0, 0.01);
    std::vector<hm::Observation> obs;
    for (int c = 0; c < 10; ++c)
      for (int u = 0; u < 10; ++u) {
        hm::Observation o;
        o.cpu_ghz = 1.2 + 0.2 * c;
        o.uncore_ghz = 1.2 + 0.2 * u;
        o.label = "c" + std::to_string(c) + "u" + std::to_string(u);
        o.mem_gbs = NAN;
        o.time_s = (40 / o.cpu_ghz + 20) * (1 + z(rng));
        o.power_w = (60 + 3 * std::pow(o.cpu_ghz, 3) + 25 * *o.uncore_ghz) * (1 + z(rng));
        o.energy_j = *o.power_w * o.time_s;
        o.energy_domains = "package";
        obs.push_back(o);
      }
    hm::AnalyzeOptions opts;
    opts.model = "cpu+fixed";
    return hm::analyze(hm::assemble(obs), opts);
  }();
  return rep;
}

void BM_EnergyFitAndDecide100(benchmark::State& state) {
  const hm::ModelReport& rep = sweep100();
  for (auto _ : state) benchmark::DoNotOptimize(hm::analyze_energy(rep, 0.05));
  state.counters["configs"] = static_cast<double>(rep.points.size());
}
BENCHMARK(BM_EnergyFitAndDecide100)->Unit(benchmark::kMillisecond);

void BM_PowerFitOnly100(benchmark::State& state) {
  const hm::ModelReport& rep = sweep100();
  std::vector<hm::PowerSample> s;
  for (const auto& p : rep.points) s.push_back({p.cpu_ghz, p.uncore_ghz, p.power_reps_w});
  for (auto _ : state) benchmark::DoNotOptimize(hm::fit_power(s));
}
BENCHMARK(BM_PowerFitOnly100)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
