#pragma once
// Reading a published fixture without the product's loader, and the closed-form fit the product's
// cpu+fixed result is checked against (tests/model/published_series_test.cpp, acceptance tests).
#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/model/validation_data.h"

namespace hpcsens::model::published {

// The series' path: published ones from ../shared/validation-data/project-published (tests call
// REQUIRE_PUBLISHED on it first), the synthetic one from tests/model/fixtures.
inline std::string fixture(const std::string& name) { return testing::fixture_path(name); }

struct Run {
  std::string label;
  double cpu_ghz = 0, mem_gbs = 0, time_s = 0;
};

// Every data line of a fixture CSV (label,cpu_ghz,mem_gbs,time_s[,app]); '#' lines and the header skipped.
inline std::vector<Run> read_runs(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::vector<Run> runs;
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (header) {
      header = false;
      continue;
    }
    std::stringstream s(line);
    std::string label, f, m, t;
    std::getline(s, label, ','), std::getline(s, f, ','), std::getline(s, m, ','), std::getline(s, t, ',');
    runs.push_back({label, std::stod(f), std::stod(m), std::stod(t)});
  }
  return runs;
}

// Median time of each clock's runs.
inline std::map<double, double> read_medians(const std::string& path) {
  std::map<double, std::vector<double>> by;
  for (const auto& r : read_runs(path)) by[r.cpu_ghz].push_back(r.time_s);
  std::map<double, double> out;
  for (auto& [f, v] : by) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    out[f] = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  }
  return out;
}

struct CpuFixed {
  double w_cpu = 0, fixed = 0;
};

// Minimises sum_j ((W/f_j + F) / T_j - 1)^2 with F >= 0: with u = 1/(f T), v = 1/T the normal
// equations are [Suu Suv; Suv Svv] [W; F] = [Su; Sv]; a negative F is clamped to 0 and W refitted.
inline CpuFixed weighted_cpu_fixed(const std::map<double, double>& medians) {
  double suu = 0, suv = 0, svv = 0, su = 0, sv = 0;
  for (const auto& [f, t] : medians) {
    const double u = 1 / (f * t), v = 1 / t;
    suu += u * u, suv += u * v, svv += v * v, su += u, sv += v;
  }
  const double det = suu * svv - suv * suv;
  CpuFixed c{(su * svv - sv * suv) / det, (suu * sv - suv * su) / det};
  if (c.fixed < 0) c = {su / suu, 0};
  return c;
}

}  // namespace hpcsens::model::published
