#pragma once
// The sweep spec: what to run, at which knob settings, how often and in which order.
// Parsed from YAML; every validation error names the file, the line and the field.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sweep/spec/sbatch_options.h"

namespace hpcsens::sweep {

// Plausibility bounds: a value outside them is a typo (MHz for GHz, a stray exponent) or a
// plan that would never finish, so the spec is refused (documented in docs/spec-format.md).
inline constexpr double kMinGhz = 0.1, kMaxGhz = 10;         // cpu_ghz, uncore_ghz
inline constexpr double kMinGbs = 0.1, kMaxGbs = 100000;     // emulated bandwidths
inline constexpr double kMaxEmulatedWork = 1e9;             // W_cpu, W_mem, T_io
inline constexpr double kMaxNoisePct = 50;
inline constexpr double kMinArrayMb = 0.001, kMaxArrayMb = 1e7;  // calibration.stream_array_mb
inline constexpr long kMaxRepetitions = 1000;
inline constexpr long kMaxRetries = 100;
inline constexpr long kMaxStreamNtimes = 1000;
inline constexpr long kMaxRanks = 1000000;
inline constexpr std::size_t kMaxTotalRuns = 100000;         // points x repetitions
inline constexpr std::size_t kMaxSpecBytes = 4u << 20;       // a spec file

// How the core frequency is changed.
enum class CpuBackend {
  kCpufreq,  // Linux cpufreq sysfs (userspace governor, or min = max pinning for pstate drivers)
  kSlurm,    // srun --cpu-freq=<kHz> on the job's own srun line (Slurm restores it itself)
  kLikwid,   // likwid-setFrequencies
};

struct UncoreSetting {
  double min_ghz = 0;
  double max_ghz = 0;
};

// A memory configuration cannot be switched at run time (DRAM speed is set at boot): it is
// declared, together with how the sweep reaches it, and its bandwidth is measured.
struct MemoryConfig {
  std::string name;
  std::string slurm_partition;     // srun --partition=...
  std::string slurm_constraint;    // srun --constraint=...
  std::vector<std::string> nodes;  // srun --nodelist / mpirun --host
  std::string manual;              // instruction shown to the operator, who confirms on stdin
  std::optional<double> emulated_gbs;  // emulated launcher only: the configuration's bandwidth
  int line = 0;                    // where it was declared, for later error messages
};

struct Calibration {
  bool stream = true;
  std::optional<double> stream_array_mb;  // aggregate size of one array; unset: 4x the LLC
  int stream_ntimes = 10;
  std::optional<int> ranks;               // unset: the job's rank count
  bool latency = false;                   // idle latency by pointer chase -> config.lat_ns
  // Ping-pong latency and streaming bandwidth between the ranks -> config.net_*; unset: on
  // exactly when knobs.network is swept.
  std::optional<bool> network;
  // Dependent-add chain timed by the thread's CPU time -> achieved GHz, on by default: the fit
  // uses the measured clock, not the set one, wherever it can (a rank sharing a core with
  // another rank still reads low; ranks that disagree by > 10 % are not used as the clock).
  bool clock = true;
  std::vector<std::string> launcher;      // override: launcher prefix for the calibrator
};

// A network setting (knobs.network): the preload slows every message by an added latency and
// an added per-byte time (a serial link of `bandwidth_gbs`), see docs/spec-format.md. The values
// are ADDED to the real network's, not targets: the measured base rates plus these give the
// rates the model uses (config.net_latency_us, config.net_ns_per_byte).
struct NetworkSetting {
  std::string name;
  double latency_us = 0;     // added per message
  double bandwidth_gbs = 0;  // the added link's bandwidth; 0: no per-byte delay
  int line = 0;
};

// Ground truth for the emulated launcher (machines without DVFS): records are computed, not
// measured, from T = sum - overlap * (sum - max), sum = W_cpu/R_cpu + W_mem/R_mem + T_io.
// What real sweeps show and the plain ground truth lacks (all off by default; each field is
// documented in docs/spec-format.md, "emulated"). The run time uses the machine's true rates;
// the record carries the rates a real sweep would have MEASURED (jittered) and requested.
struct EmulatedRealism {
  double stream_jitter_pct = 0;         // measured STREAM scatter per run (1 sigma, percent)
  double clock_jitter_pct = 0;          // measured core clock scatter per run (1 sigma, percent)
  double stream_clock_elasticity = 0;   // STREAM and memory time follow (clock / top clock)^e
  double cache_gb = 0;                  // GB served by a cache clocked with the core
  double cache_bytes_per_cycle = 32;    // that cache's bandwidth per core clock cycle
  std::optional<double> knee_gbs;       // the code's memory time stops improving above this
  std::optional<double> clock_ceiling_ghz;  // requested clocks above it are not reached
};

// A power truth for the emulated launcher (docs/spec-format.md, "power"): a clock domain's
// dynamic power grows like f x V(f)^2, V linear in f from v_min at min_ghz to v_max at max_ghz
// (never below v_min), scaled so that it draws dynamic_w at max_ghz.
struct EmulatedClockPower {
  double dynamic_w = 0;
  std::optional<double> min_ghz, max_ghz;  // unset (core): the sweep's lowest / highest cpu_ghz
  double v_min = 0.7, v_max = 1.1;         // volts
  std::optional<double> ghz;               // uncore only: its fixed clock (no uncore knob here)
};

struct EmulatedPower {
  double static_w = 0;                     // per node, in the package zone
  EmulatedClockPower core;
  std::optional<EmulatedClockPower> uncore;
  double dram_w = 0;                       // 0: no DRAM zone (as on client parts and AMD)
  double noise_pct = 0;                    // per-run scatter of the true power (1 sigma, percent)
  std::uint64_t max_energy_range_uj = 262143328850;  // the counters' wrap (a common Intel value)
  int line = 0;                            // of `emulated.power`, for later messages
};

struct Emulation {
  double w_cpu = 0;      // giga-cycles
  double w_mem = 0;      // GB moved
  double t_io = 0;       // seconds
  double overlap = 0;    // 0: terms add up; 1: only the largest term is exposed
  double noise_pct = 0;  // relative Gaussian noise on every run time (percent, 1 sigma)
  std::uint64_t seed = 1;
  int ranks = 4;
  std::optional<double> mem_gbs;  // bandwidth when no memory configurations are declared
  EmulatedRealism realism;
  std::optional<EmulatedPower> power;  // unset: emulated records say energy is not available
};

// Where the runs execute: one after another on this machine (local), or as one Slurm job array
// whose tasks run at most `array_max_running` at a time (docs/spec-format.md, "execution").
enum class Execution { kLocal, kSlurmArray };
inline constexpr long kMaxArrayRunning = 10000;

struct SweepSpec {
  std::string source;                 // the spec file, for messages
  std::vector<std::string> command;   // LAUNCHER ARGS... of the job
  double timeout_s = 0;               // per run; 0 = none
  int repetitions = 1;
  bool randomized = true;
  std::uint64_t seed = 1;
  int retries = 1;                    // extra attempts after a failed run
  std::string output_dir = "hpcsens-sweep";
  std::string events = "default";

  CpuBackend cpu_backend = CpuBackend::kCpufreq;
  std::vector<double> cpu_ghz;        // empty: the core frequency is not a knob
  bool cpu_all_available = false;     // "all": resolved from sysfs when planning
  int cpu_ghz_line = 0;               // where knobs.cpu_ghz / uncore_ghz are, for backend errors
  int uncore_line = 0;
  std::vector<UncoreSetting> uncore;  // empty: uncore is not a knob
  // knobs.turbo: off (default) holds every point at or below the base clock with turbo/boost
  // disabled for the sweep (restored after); on enables it and lets points above base run.
  bool turbo = false;
  int turbo_line = 0;
  // knobs.cpu_rounding: table (default) runs a value the driver does not offer at the clock
  // the driver would pick (recorded as set); refuse stops at planning instead.
  bool cpu_round_to_table = true;
  // knobs.uncore_domains: compute (default) changes only TPMI domains with core/cache/memory
  // agents; all also the I/O dies (PCIe, UPI: the network path).
  bool uncore_all_domains = false;
  std::vector<MemoryConfig> memory;   // empty: one (the current) memory configuration
  // knobs.memory_backend: resctrl throttles memory bandwidth live, one resctrl group per point
  // whose MB: line holds knobs.mem_bw's value (the kernel's unit: percent on Intel, 1/8 GB/s
  // on AMD); declared (the default) reaches the knobs.memory configurations instead.
  bool memory_resctrl = false;
  std::vector<long> mem_bw;           // empty: memory bandwidth is not throttled
  int mem_bw_line = 0;
  std::vector<NetworkSetting> network;  // empty: the network is not a knob
  std::string sysfs_root = "/sys";
  std::string resctrl_root;           // backends.resctrl_root; "" = <sysfs_root>/fs/resctrl

  Calibration calibration;
  std::optional<Emulation> emulation;

  Execution execution = Execution::kLocal;
  int array_max_running = 4;
  SbatchOptions sbatch;               // slurm-array only: partition, account, time, qos, extra
};

// Where the resctrl filesystem is (backends.resctrl_root, else under the sysfs root).
std::string resctrl_root_of(const SweepSpec& spec);

// Throws hpcsens::InputError("<file>:<line>: <field>: <problem>").
SweepSpec parse_spec_file(const std::string& path);
SweepSpec parse_spec_text(const std::string& text, const std::string& source);

}  // namespace hpcsens::sweep
