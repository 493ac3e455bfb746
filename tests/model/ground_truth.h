#pragma once
// Test double: run times generated from a known sensitivity model, with multiplicative
// Gaussian noise (fixed seed), optional partial overlap of cpu and memory time, outliers
// and per-rank variation. Used to check that the fitter recovers what was put in.
#include <random>
#include <vector>

#include "model/dataset.h"

namespace hpcsens::model::testing {

struct Truth {
  double w_cpu = 24.0;   // Gcycles
  double w_mem = 300.0;  // GB
  double t_io = 0.0;     // s
  double w_lat = 0.0;    // G accesses (x ns = s)
  double overlap = 0.0;  // fraction w of the smaller of cpu/mem time hidden under the larger
};

struct Config {
  double cpu_ghz, mem_gbs;
  double lat_ns = 0;
};

// Exact time of the truth at a configuration.
double true_time(const Truth& t, const Config& c);

// Cartesian grid of CPU and memory rates.
std::vector<Config> grid(const std::vector<double>& cpus, const std::vector<double>& mems);

struct Outlier {
  size_t config;  // index into the configurations
  double factor;  // its first repetition's time is multiplied by this (a disturbed run)
};

struct NoiseSpec {
  double rel_sigma = 0.01;
  unsigned seed = 7;
  int reps = 1;
  std::vector<Outlier> outliers = {};
};

// One observation per configuration and repetition, labelled "c<cpu>-m<mem>".
std::vector<Observation> generate(const Truth& t, const std::vector<Config>& configs, const NoiseSpec& noise);

// Points (one per configuration, no repetitions) straight from generate().
std::vector<Point> generate_points(const Truth& t, const std::vector<Config>& configs, const NoiseSpec& noise);

// The 4 CPU x 3 memory design used by the acceptance tests.
std::vector<Config> acceptance_grid();

}  // namespace hpcsens::model::testing
