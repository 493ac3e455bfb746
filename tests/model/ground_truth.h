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
  // Measurement jitter of the recorded rates, uniform in +/- this fraction and drawn for every run:
  // STREAM measured at every visit of a point, the calibrated clock. Times follow the true rates.
  double cpu_jitter = 0, mem_jitter = 0;
};

// One observation per configuration and repetition, labelled "c<cpu>-m<mem>".
std::vector<Observation> generate(const Truth& t, const std::vector<Config>& configs, const NoiseSpec& noise);

// Points (one per configuration, no repetitions) straight from generate().
std::vector<Point> generate_points(const Truth& t, const std::vector<Config>& configs, const NoiseSpec& noise);

// The 4 CPU x 3 memory design used by the acceptance tests.
std::vector<Config> acceptance_grid();

// A truth the sensitivity model cannot describe exactly, as real machines behave:
// - curvature: a part of the core-clock time that follows the clock only partly (a cache in the
//   core clock domain): w_curve / cpu^0.5 Gcycles-like seconds;
// - a bandwidth knee: the memory time stops improving above knee_gbs (smoothly, p-norm of 4);
// - partial overlap of cpu and memory time (fraction `overlap` of the smaller one hidden).
struct MisspecTruth {
  double w_cpu = 24, w_mem = 300, t_io = 1;
  double w_curve = 0;    // seconds at 1 GHz of the part scaling as 1/sqrt(clock)
  double knee_gbs = 0;   // 0: no knee
  double overlap = 0;
};

// Exact time of a misspecified truth at true rates.
double misspec_time(const MisspecTruth& t, double cpu_ghz, double mem_gbs);
// d ln T / d ln R at (cpu_ghz, mem_gbs) for R = cpu_ghz or mem_gbs (central difference).
double true_elasticity(const MisspecTruth& t, Rate r, double cpu_ghz, double mem_gbs);
// Points at `configs` with relative time noise and measured-rate jitter (uniform +/- jitter).
std::vector<Point> misspec_points(const MisspecTruth& t, const std::vector<Config>& configs, double rel_sigma,
                                  double rate_jitter, unsigned seed);

}  // namespace hpcsens::model::testing
