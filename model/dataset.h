#pragma once
// Fit input: measured times per configuration, from run records or CSV. Repetitions of one
// configuration (same sweep point in records, same label in CSV) are combined by their median;
// the spread of times is kept and a spread of the measured rates above kRateSpreadWarn is warned.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/model_spec.h"
#include "record/run_record.h"

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
// The network: a configuration's latency per message and time per byte (0: nothing measured
// and nothing added); a candidate's bandwidth.
inline constexpr PlausibleRange kNetLatencyUsRange{0, 1e6};
inline constexpr PlausibleRange kNetNsPerByteRange{0, 1e6};
inline constexpr PlausibleRange kNetBandwidthGbsRange{1e-3, 1e6};

// Input files larger than this are refused (a sweep's results.csv of 100,000 runs is ~10 MB).
inline constexpr std::size_t kMaxInputBytes = 64u << 20;
// Repetitions of one configuration whose measured rates differ by more than this fraction of
// their median are warned about: STREAM normally repeats within about 1 %.
inline constexpr double kRateSpreadWarn = 0.02;
// A measured clock that differs from the set (else the requested) one by more than this fraction is reported.
inline constexpr double kClockDisagreeWarn = 0.05;

// Throws InputError(where, ...) unless v is finite and inside r.
void check_plausible(double v, PlausibleRange r, const std::string& where);

// One measurement before combining: a run record or a CSV row.
struct Observation {
  std::string label;
  double cpu_ghz = 0;
  double mem_gbs = 0;
  std::optional<double> lat_ns;
  std::optional<double> net_latency_us, net_ns_per_byte;  // config.net_* (sweep knobs.network)
  double time_s = 0;                    // job time (NaN when only per-rank times are known)
  std::map<int, double> rank_times;     // per-rank time, if known
  bool emulated = false;
  std::string group;                    // configuration key: "point N" (records) or the label
  std::string app;                      // application: record's job command, CSV app column
  std::string source;                   // file it came from
  std::optional<double> cpu_requested;  // config.cpu_ghz_requested
  std::optional<double> cpu_set;        // config.cpu_ghz_set: where the driver put the request
  std::optional<double> cpu_measured;   // config.cpu_ghz_measured (calibration.clock)
  std::string cpu_source;               // config.cpu_ghz_source: measured, requested, nominal, emulated
  std::string node;                     // config.node: where a slurm-array task ran it
  KnobSetting knobs;                    // what the sweep's knobs set (model/knob_design.h)
  // Energy (model/energy_dataset.h): the set uncore clock; joules and mean power over the run
  // (summed over the record's measured nodes); the domains they hold, or why there are none.
  std::optional<double> uncore_ghz, energy_j, power_w;
  std::string energy_domains, energy_reason;
  // The record's energy.source (powercap, emulated), "csv" for a fit CSV; the nodes measured.
  std::string energy_source;
  int energy_nodes = 0;
};

// One run's time and node, with the configuration it belongs to (index into Dataset::points).
struct NodeRun {
  std::string node;
  std::size_t point = 0;
  double time_s = 0;
};

struct Dataset {
  std::vector<Point> points;                   // one per distinct configuration, input order
  std::vector<int> ranks;                      // ranks with per-rank times (sorted)
  std::vector<std::vector<double>> rank_times; // [rank index][point index], median; NaN if missing
  bool emulated = false;                       // any input was emulated
  std::vector<std::string> sources;            // files read
  std::vector<std::string> notes;              // e.g. skipped non-run JSON files
  std::vector<std::string> warnings;           // rate spreads, clock disagreements, mixed apps
  std::vector<std::string> clock_problems;     // measured clock disagreeing with the request
  int requested_clock_runs = 0;                // runs whose cpu_ghz is the requested, unmeasured clock
  // Every run's cpu_ghz, the clock the fit uses, was measured (calibration.clock, counters, the
  // emulator's own): a clock that moved did move. False for CSV rows and requested clocks.
  bool clock_measured = false;
  std::string app;                             // the application (first one when mixed)
  std::vector<std::string> apps;               // every distinct application, input order
  std::vector<NodeRun> node_runs;              // runs that name their node (config.node)
  std::size_t runs_without_node = 0;
  std::vector<std::string> regions;            // region names in the records (LoadOptions::list_regions)
};

struct LoadOptions {
  bool allow_mixed = false;  // fit records of several applications as one model (warned)
  // Fit this named region: each record's time is its slowest rank's region wall_s, each rank's
  // time its own (model/region_times.h). Records lacking it: InputError naming them. CSV: refused.
  std::string region;
  bool list_regions = false;  // fill Dataset::regions
};

// CSV with a header: label,cpu_ghz,mem_gbs,time_s and optional rank, lat_ns columns (any order).
// Throws InputError naming file, line and field.
std::vector<Observation> read_fit_csv(const std::string& path);
// Same, from text already in memory; `path` is only used in messages.
std::vector<Observation> parse_fit_csv(const std::string& text, const std::string& path);

// One run record file -> one observation (config.cpu_ghz, config.mem_gbs, timing.job_s, ranks[].wall_s).
Observation read_run_record_observation(const std::string& path);
Observation observation_of(const record::RunRecord& r, const std::string& path);

// Combines repetitions by median. With per-rank rows but no job time, the job time of a
// configuration is the slowest rank's median.
Dataset assemble(const std::vector<Observation>& obs);

// Files (.csv or run record .json) and directories (every *.json run record inside, recursively).
// Refuses (InputError naming both) inputs of two applications unless opts.allow_mixed.
Dataset load_dataset(const std::vector<std::string>& inputs, const LoadOptions& opts = {});

// The application a record belongs to: its command without the per-point knob options a sweep
// adds (srun --cpu-freq), so runs of one sweep compare equal.
std::string application_of(const std::vector<std::string>& command);

double median(std::vector<double> v);

// The points' combined times, in point order (the fitter takes times apart from the points).
std::vector<double> times_of(const std::vector<Point>& points);

}  // namespace hpcsens::model
