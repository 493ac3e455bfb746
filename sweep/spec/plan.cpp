#include "sweep/spec/plan.h"

#include <algorithm>
#include <cstdio>
#include <random>
#include <stdexcept>

namespace hpcsens::sweep {
namespace {

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string run_id(int point, int rep) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "p%02d-r%d", point, rep);
  return buf;
}

}  // namespace

std::string point_label(const Point& p, const SweepSpec& spec) {
  std::string l;
  auto add = [&](const std::string& s) { l += (l.empty() ? "" : "_") + s; };
  if (p.cpu_ghz) add("cpu" + num(*p.cpu_ghz));
  if (p.uncore)
    add(p.uncore->min_ghz == p.uncore->max_ghz ? "unc" + num(p.uncore->max_ghz)
                                               : "unc" + num(p.uncore->min_ghz) + "-" + num(p.uncore->max_ghz));
  if (p.memory) add(spec.memory[*p.memory].name);
  if (p.mem_bw) add("mb" + std::to_string(*p.mem_bw));
  if (p.network) add("net-" + spec.network[*p.network].name);
  return l.empty() ? "default" : l;
}

Plan make_plan(const SweepSpec& spec, const std::vector<double>& cpu_values) {
  Plan plan;
  // std::nullopt stands for "not a knob": one pass through that dimension.
  std::vector<std::optional<double>> cpus(cpu_values.begin(), cpu_values.end());
  if (cpus.empty()) cpus.push_back(std::nullopt);
  std::vector<std::optional<UncoreSetting>> uncs(spec.uncore.begin(), spec.uncore.end());
  if (uncs.empty()) uncs.push_back(std::nullopt);
  std::vector<std::optional<int>> mems;
  for (int m = 0; m < int(spec.memory.size()); ++m) mems.push_back(m);
  if (mems.empty()) mems.push_back(std::nullopt);
  std::vector<std::optional<long>> mbs(spec.mem_bw.begin(), spec.mem_bw.end());
  if (mbs.empty()) mbs.push_back(std::nullopt);
  std::vector<std::optional<int>> nets;
  for (int n = 0; n < int(spec.network.size()); ++n) nets.push_back(n);
  if (nets.empty()) nets.push_back(std::nullopt);

  for (const auto& m : mems)
    for (const auto& b : mbs)
      for (const auto& c : cpus)
        for (const auto& u : uncs)
          for (const auto& n : nets) {
          Point p;
          p.index = int(plan.points.size());
          p.cpu_ghz = c;
          p.uncore = u;
          p.memory = m;
          p.mem_bw = b;
          p.network = n;
          p.label = point_label(p, spec);
          plan.points.push_back(p);
        }
  if (plan.points.empty()) throw std::runtime_error("the sweep grid is empty");

  // Blocks: one per manual memory configuration, and one for everything else.
  std::vector<std::vector<PlannedRun>> blocks;
  std::vector<PlannedRun> rest;
  std::vector<std::vector<PlannedRun>> manual(spec.memory.size());
  for (const auto& p : plan.points)
    for (int r = 1; r <= spec.repetitions; ++r) {
      PlannedRun run{run_id(p.index, r), p.index, r};
      if (p.memory && !spec.memory[*p.memory].manual.empty()) manual[*p.memory].push_back(run);
      else rest.push_back(run);
    }
  if (!rest.empty()) blocks.push_back(std::move(rest));
  for (auto& b : manual)
    if (!b.empty()) blocks.push_back(std::move(b));

  // mt19937_64 with a fixed seed gives the same sequence on every platform; std::shuffle's
  // use of it is implementation-defined, so the Fisher-Yates loop is written out here.
  std::mt19937_64 rng(spec.seed);
  for (auto& b : blocks) {
    if (spec.randomized)
      for (std::size_t i = b.size(); i > 1; --i) {
        const std::size_t j = std::size_t(rng() % i);
        std::swap(b[i - 1], b[j]);
      }
    plan.runs.insert(plan.runs.end(), b.begin(), b.end());
  }
  return plan;
}

}  // namespace hpcsens::sweep
