#pragma once
// The sweep plan: the grid of knob settings (points) times repetitions, in a seeded random
// order so slow drift of the machine does not line up with a knob. Pure: no files, no clocks.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sweep/spec/spec.h"

namespace hpcsens::sweep {

struct Point {
  int index = 0;
  std::optional<double> cpu_ghz;
  std::optional<UncoreSetting> uncore;
  std::optional<int> memory;  // index into spec.memory
  std::optional<long> mem_bw; // resctrl MB: value (knobs.mem_bw)
  std::optional<int> network;  // index into spec.network
  std::string label;          // e.g. "cpu2.4_unc1.8_ddr4-2400"
};

struct PlannedRun {
  std::string id;  // "p03-r2": stable across resumes, names the record file
  int point = 0;
  int repetition = 0;  // 1-based
};

struct Plan {
  std::vector<Point> points;
  std::vector<PlannedRun> runs;  // execution order
};

// `cpu_values` is the resolved list (spec.cpu_ghz, or the hardware list for "all").
// Manual memory configurations are visited one after another (the operator changes hardware
// once per configuration) with the runs inside each shuffled; everything else is shuffled as a
// whole. Throws std::runtime_error for an empty grid.
Plan make_plan(const SweepSpec& spec, const std::vector<double>& cpu_values);

std::string point_label(const Point& p, const SweepSpec& spec);

}  // namespace hpcsens::sweep
