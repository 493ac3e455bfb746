#include "tests/model/ground_truth.h"

#include <algorithm>
#include <cmath>
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
  std::mt19937 jitter_rng(noise.seed + 1000);  // separate stream: the times stay as without jitter
  std::uniform_real_distribution<double> u(-1.0, 1.0);
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
      if (noise.cpu_jitter > 0) o.cpu_ghz *= 1.0 + noise.cpu_jitter * u(jitter_rng);
      if (noise.mem_jitter > 0) o.mem_gbs *= 1.0 + noise.mem_jitter * u(jitter_rng);
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

double misspec_time(const MisspecTruth& t, double cpu_ghz, double mem_gbs) {
  const double cpu = t.w_cpu / cpu_ghz + t.w_curve / std::sqrt(cpu_ghz);
  // Above the knee more bandwidth no longer helps: the usable bandwidth is a smooth minimum.
  const double bw = t.knee_gbs > 0 ? std::pow(std::pow(mem_gbs, -4) + std::pow(t.knee_gbs, -4), -0.25) : mem_gbs;
  const double mem = t.w_mem / bw, sum = cpu + mem;
  return t.t_io + sum - t.overlap * (sum - std::max(cpu, mem));
}

double true_elasticity(const MisspecTruth& t, Rate r, double cpu_ghz, double mem_gbs) {
  const double h = 1e-5;
  auto at = [&](double f) {
    return std::log(r == Rate::cpu_ghz ? misspec_time(t, cpu_ghz * f, mem_gbs) : misspec_time(t, cpu_ghz, mem_gbs * f));
  };
  return (at(std::exp(h)) - at(std::exp(-h))) / (2 * h);
}

std::vector<Point> misspec_points(const MisspecTruth& t, const std::vector<Config>& configs, double rel_sigma,
                                  double rate_jitter, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> n(0.0, rel_sigma);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<Point> out;
  for (const auto& c : configs) {
    Point p;
    std::ostringstream label;
    label << "c" << c.cpu_ghz << "-m" << c.mem_gbs;
    p.label = label.str();
    p.time_s = misspec_time(t, c.cpu_ghz, c.mem_gbs) * (1.0 + n(rng));
    p.min_s = p.max_s = p.time_s;
    p.cpu_ghz = c.cpu_ghz * (1.0 + rate_jitter * u(rng));
    p.mem_gbs = c.mem_gbs * (1.0 + rate_jitter * u(rng));
    out.push_back(p);
  }
  return out;
}

}  // namespace hpcsens::model::testing
