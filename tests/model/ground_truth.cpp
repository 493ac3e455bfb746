#include "tests/model/ground_truth.h"

#include <algorithm>
#include <sstream>

namespace hpcsens::model::testing {

double true_time(const Truth& t, const Config& c) {
  const double cpu = t.w_cpu / c.cpu_ghz, mem = t.w_mem / c.mem_gbs;
  const double sum = cpu + mem;
  return t.t_io + sum - t.overlap * (sum - std::max(cpu, mem)) + t.w_lat * c.lat_ns;
}

std::vector<Config> grid(const std::vector<double>& cpus, const std::vector<double>& mems) {
  std::vector<Config> g;
  for (double c : cpus)
    for (double m : mems) g.push_back({c, m});
  return g;
}

std::vector<Observation> generate(const Truth& t, const std::vector<Config>& configs, const NoiseSpec& noise) {
  std::mt19937 rng(noise.seed);
  std::normal_distribution<double> n(0.0, noise.rel_sigma);
  std::vector<Observation> out;
  for (size_t i = 0; i < configs.size(); ++i)
    for (int r = 0; r < noise.reps; ++r) {
      const Config& c = configs[i];
      Observation o;
      std::ostringstream label;
      label << "c" << c.cpu_ghz << "-m" << c.mem_gbs;
      o.label = label.str();
      o.cpu_ghz = c.cpu_ghz;
      o.mem_gbs = c.mem_gbs;
      if (c.lat_ns > 0) o.lat_ns = c.lat_ns;
      o.time_s = true_time(t, c) * (1.0 + n(rng));
      for (const auto& out : noise.outliers)
        if (out.config == i && r == 0) o.time_s *= out.factor;
      out.push_back(o);
    }
  return out;
}

std::vector<Point> generate_points(const Truth& t, const std::vector<Config>& configs, const NoiseSpec& noise) {
  return assemble(generate(t, configs, noise)).points;
}

std::vector<Config> acceptance_grid() { return grid({1.2, 1.8, 2.4, 3.0}, {15, 35, 60}); }

}  // namespace hpcsens::model::testing
