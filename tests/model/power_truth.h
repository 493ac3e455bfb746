#pragma once
// A power truth for energy tests (issue 31): power = static + a dynamic part growing like
// f V(f)^2 with V linear in f (what the emulated launcher's power truth does,
// sweep/execute/emulated_power.h), run time = W / f + fixed, both with run-to-run noise; swept
// and fitted through the dataset -> analyze path `hpcsens fit` takes. Test double, named as such.
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "model/analysis.h"
#include "model/dataset.h"

namespace hpcsens::model::power_truth {

struct PowerTruth {
  double static_w = 70, dynamic_w = 90;        // dynamic at f_max
  double f_min = 1.0, f_max = 3.0, v_min = 0.70, v_max = 1.10;
  double work_gcycles = 60, fixed_s = 25;      // T = W / f + fixed
  double volts(double f) const { return v_min + (v_max - v_min) * (f - f_min) / (f_max - f_min); }
  double power(double f) const { return static_w + dynamic_w * f / f_max * std::pow(volts(f) / volts(f_max), 2); }
  double time(double f) const { return work_gcycles / f + fixed_s; }
  double energy(double f) const { return power(f) * time(f); }
};

// 1.0 to 3.0 GHz in 0.2 GHz steps.
inline std::vector<double> grid() {
  std::vector<double> g;
  for (int i = 0; i <= 10; ++i) g.push_back(1.0 + 0.2 * i);
  return g;
}

struct SweepOptions {
  double noise = 0.01;           // 1 sigma, on time and on power
  double clock_scatter = 0;      // relative scatter of the measured clock around the set one
  std::string source = "";       // the records' energy.source ("emulated", "powercap")
};

// Three runs per clock of the grid (seeded).
inline Dataset sweep(const PowerTruth& t, unsigned seed, const SweepOptions& opt = {}) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> z(0, opt.noise), c(0, opt.clock_scatter);
  std::vector<Observation> obs;
  for (double f : grid())
    for (int r = 0; r < 3; ++r) {
      Observation o;
      o.label = "f" + std::to_string(f).substr(0, 3);
      o.cpu_ghz = f * (1 + (opt.clock_scatter > 0 ? c(rng) : 0));
      o.mem_gbs = NAN;
      o.time_s = t.time(f) * (1 + z(rng));
      o.power_w = t.power(f) * (1 + z(rng));
      o.energy_j = *o.power_w * o.time_s;
      o.energy_domains = "package";
      o.energy_source = opt.source;
      o.energy_nodes = 1;
      obs.push_back(o);
    }
  return assemble(obs);
}

inline ModelReport fit(const Dataset& d, double max_slowdown = 0.05) {
  AnalyzeOptions opts;
  opts.model = "cpu+fixed";
  opts.max_slowdown = max_slowdown;
  return analyze(d, opts);
}

}  // namespace hpcsens::model::power_truth
