#pragma once
// Calibration at each sweep configuration: the memory bandwidth the job can get (STREAM Triad
// over the job's own ranks and nodes, arrays >= 4x the last-level cache), the core clock the
// ranks actually ran at, and optionally the idle memory latency. Results go into the run
// record's `config` so the fit uses measured rates, never nominal ones.
#include <csignal>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sweep/spec/spec.h"

namespace hpcsens::sweep {

// Sum of the distinct last-level caches under <root>/devices/system/cpu (each cache counted
// once, however many CPUs share it). 0 when sysfs does not describe caches.
std::uint64_t llc_total_bytes(const std::string& sysfs_root);

// Parses sysfs cache sizes such as "32K", "1024K", "48M".
std::uint64_t parse_cache_size(const std::string& text);

// MemAvailable from /proc/meminfo, 0 when unknown.
std::uint64_t mem_available_bytes();

struct ArraySize {
  std::uint64_t bytes = 0;  // aggregate size of one array over all ranks
  bool meets_4x_llc = false;
  std::string note;         // why it is smaller than 4x the LLC, when it is
};

// spec value if given; else 4x the LLC, capped so the three arrays use at most a quarter of
// the available memory (a VM may report a huge shared LLC).
ArraySize stream_array_size(const Calibration& c, std::uint64_t llc_bytes, std::uint64_t mem_available);

// The calibrator's JSON line (the last line of its stdout that parses). Throws
// std::runtime_error when there is none.
nlohmann::json parse_calibrator_output(const std::string& out);

// Nominal clock when nothing is measured or requested: cpuinfo_max_freq of cpu0 under the
// sysfs root, else /proc/cpuinfo "cpu MHz". nullopt when neither exists.
std::optional<double> nominal_ghz(const std::string& sysfs_root);

struct CalibrationRun {
  nlohmann::json config = nlohmann::json::object();  // keys merged into the record's config
  std::string error;                                  // non-empty: calibration failed
};

// Runs the calibrator (`stream_exe`) through `launcher` (the job's launcher prefix) and, when
// asked, the serial latency probe. `requested_ghz` is the point's CPU setting (if any),
// `set_ghz` the clock the driver was set to (rounded as it rounds); config.cpu_ghz is the
// measured clock, else the set one, and only without either the requested one.
CalibrationRun calibrate(const SweepSpec& spec, const std::vector<std::string>& launcher,
                         const std::string& stream_exe, std::optional<double> requested_ghz,
                         std::optional<double> set_ghz, const volatile std::sig_atomic_t* stop_flag);

}  // namespace hpcsens::sweep
