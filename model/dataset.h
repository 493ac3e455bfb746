#pragma once
// Fit input: measured times per configuration, from run records or CSV. Repetitions of one
// configuration (same label, cpu_ghz, mem_gbs) are combined by their median; the spread is kept.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/model_spec.h"

namespace hpcsens::model {

// Plausible ranges for measured inputs and prediction targets (inclusive). Values outside are
// typos or unit mix-ups, and extreme magnitudes make the overlap LP numerically meaningless.
struct PlausibleRange {
  double lo, hi;
};
inline constexpr PlausibleRange kTimeSRange{1e-9, 1e7};   // up to ~116 days
inline constexpr PlausibleRange kCpuGhzRange{0.01, 100};
inline constexpr PlausibleRange kMemGbsRange{0.01, 1e5};
inline constexpr PlausibleRange kLatNsRange{0.1, 1e6};

// Throws InputError(where, ...) unless v is finite and inside r.
void check_plausible(double v, PlausibleRange r, const std::string& where);

// One measurement before combining: a run record or a CSV row.
struct Observation {
  std::string label;
  double cpu_ghz = 0;
  double mem_gbs = 0;
  std::optional<double> lat_ns;
  double time_s = 0;                    // job time (NaN when only per-rank times are known)
  std::map<int, double> rank_times;     // per-rank time, if known
  bool emulated = false;
};

struct Dataset {
  std::vector<Point> points;                   // one per distinct configuration, input order
  std::vector<int> ranks;                      // ranks with per-rank times (sorted)
  std::vector<std::vector<double>> rank_times; // [rank index][point index], median; NaN if missing
  bool emulated = false;                       // any input was emulated
  std::vector<std::string> sources;            // files read
  std::vector<std::string> notes;              // e.g. skipped non-run JSON files
};

// CSV with a header: label,cpu_ghz,mem_gbs,time_s and optional rank, lat_ns columns (any order).
// Throws InputError naming file, line and field.
std::vector<Observation> read_fit_csv(const std::string& path);
// Same, from text already in memory; `path` is only used in messages.
std::vector<Observation> parse_fit_csv(const std::string& text, const std::string& path);

// One run record file -> one observation (config.cpu_ghz, config.mem_gbs, timing.job_s, ranks[].wall_s).
Observation read_run_record_observation(const std::string& path);

// Combines repetitions by median. With per-rank rows but no job time, the job time of a
// configuration is the slowest rank's median.
Dataset assemble(const std::vector<Observation>& obs);

// Files (.csv or run record .json) and directories (every *.json run record inside, recursively).
Dataset load_dataset(const std::vector<std::string>& inputs);

double median(std::vector<double> v);

}  // namespace hpcsens::model
