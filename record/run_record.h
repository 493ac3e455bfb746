#pragma once
// The run record: what one `hpcsens run` measured. Key names are a public interface
// (design.md, docs/record-format.md); other tools and the sweep/fit pipeline rely on them.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace hpcsens::record {

inline constexpr const char* kRunSchema = "hpcsens.run.v1";

struct CallStats {
  std::uint64_t count = 0;
  double seconds = 0.0;
  std::uint64_t bytes = 0;           // sent (received for a receive)
  std::uint64_t bytes_received = 0;  // received by a call that also sends (MPI_Sendrecv)
};

struct RankRecord {
  int rank = 0;
  std::string host;
  int pid = 0;
  // Raw clock readings (CLOCK_MONOTONIC seconds) of McCalpin's method: t0 before the init
  // barrier, t1 after it, t2 before the finalize barrier, t3 after it. Comparable across
  // ranks only on one host.
  double t0 = 0, t1 = 0, t2 = 0, t3 = 0;
  double wall_s = 0;     // t2 - t1: the rank's own work span, excluding our two barriers
  double mpi_s = 0;      // time inside intercepted MPI calls (excluding our barriers)
  double io_s = 0;       // time inside POSIX and MPI-IO calls
  double compute_s = 0;  // wall_s - mpi_s - io_s
  std::uint64_t io_bytes_read = 0;
  std::uint64_t io_bytes_written = 0;
  std::map<std::string, CallStats> mpi_calls;  // MPI call name -> stats
  std::map<std::string, CallStats> io_calls;   // POSIX / MPI-IO call name -> stats
  std::map<std::string, double> counters;      // event name -> value (scaled if multiplexed)
  std::string counters_status = "ok";          // per rank: "ok" or why not
  std::string event_set;                       // name of the event set that was counted
  bool multiplexed = false;
  // time_running / time_enabled per counted event (1.0 when counted all the time); empty: not
  // known, written as null with the reason (running_fraction_reason below).
  std::map<std::string, double> counter_running_fraction;
  // How the fraction is known, or why it is not ("" when the writer gave none).
  std::string counter_running_fraction_reason;
  bool complete = true;  // false: the rank never reached MPI_Finalize (abort, exit)
  // The rank's other sections (partners, message sizes, timeline, files, call sites, ...), kept as
  // read: a record assembled from partial files carries them through unchanged.
  nlohmann::json extra = nlohmann::json::object();
};

struct Job {
  std::vector<std::string> command;
  int nranks = 0;
  std::string launcher;     // "openmpi", "mpich-hydra", "slurm", "singleton", ...
  std::string mpi_library;  // MPI_Get_library_version, first line
  std::vector<std::string> hosts;
  std::string start_utc;    // ISO 8601
  // What the ranks run, from rank 0's own argv (program_label in preload/rank_report.h), e.g.
  // "lmp", "python3 run.py"; "" when unknown (older records).
  std::string program;
};

struct Timing {
  double job_s = 0;                   // min over ranks of t3 - t0 (always valid)
  std::optional<double> job_sync_s;   // max t2 - min t1, only with one comparable clock
  double barrier_s = 0;               // cost of our two barriers: job_s - (max t2 - min t1) or estimate
  std::string method = "mccalpin-2019-barrier";
};

struct Imbalance {
  double max_over_mean = 0;
  double lbe = 0;       // POP load-balance efficiency: mean / max of compute
  double comm_eff = 0;  // POP communication efficiency: max_k compute_k / wall_k
  double cov = 0;       // coefficient of variation of compute
  double mean_s = 0, max_s = 0, min_s = 0;
  std::vector<int> slowest;  // ranks with the most compute, slowest first (at most 5)
};

struct RunRecord {
  std::string schema = kRunSchema;
  Job job;
  nlohmann::json config = nlohmann::json::object();  // knob settings and measured rates
  Timing timing;
  std::vector<RankRecord> ranks;
  Imbalance imbalance;
  std::string counters_status = "ok";
  bool complete = true;
  bool emulated = false;  // produced by the emulated launcher, not measured
  nlohmann::json extra = nlohmann::json::object();  // sections added by later stages (topdown, ...)
};

// What a rank's record says about its running fraction beside the figures: "no counters: why"
// when it counted nothing, else the writer's reason, else (a fraction with no reason: "";
// neither: an older record) that it was not recorded. `status`: the rank's counters_status.
std::string running_fraction_reason(bool any_counters, const std::string& status, bool any_fraction,
                                    const std::string& reason);
std::string running_fraction_reason(const RankRecord& r);

nlohmann::json to_json(const RankRecord& r);
nlohmann::json to_json(const RunRecord& r);
// Throws hpcsens::InputError naming `source` and the offending field.
RankRecord rank_from_json(const nlohmann::json& j, const std::string& source);
RunRecord run_from_json(const nlohmann::json& j, const std::string& source);

// Checks what the JSON types cannot: every rank number within 0..nranks-1 and present once,
// no more ranks than job.nranks (fewer only in an incomplete record), times finite and not
// negative. Throws hpcsens::InputError naming `source`, the rank and the field.
void validate(const RunRecord& r, const std::string& source);
// The same checks for readers that keep no RankRecord: `count` ranks, rank i's numbers from
// rank_at(i); `r` supplies job, timing and complete (its `ranks` are not looked at).
struct RankCheck {
  int rank = 0;
  double wall_s = 0, mpi_s = 0, io_s = 0, compute_s = 0;
};
void validate_ranks(const RunRecord& r, std::size_t count, const std::function<RankCheck(std::size_t)>& rank_at,
                    const std::string& source);

// Largest record file read (a 100,000-rank record is about 100 MB).
inline constexpr std::size_t kMaxRecordBytes = std::size_t{1} << 30;

// Reads and validates a run record file (a regular file of at most kMaxRecordBytes); errors name
// the file and field. Duplicate keys, numbers beyond double range, and integer fields that are
// not integers within range are refused (json_input::parse_strict and the field readers).
RunRecord load_run_record(const std::string& path);
// The bytes of a record file: a regular file of at most kMaxRecordBytes (InputError otherwise).
std::string read_record_file(const std::string& path);
// The same as load_run_record for text already read from `path`.
RunRecord run_record_from_text(std::string_view text, const std::string& path);
// Writes JSON to `path` atomically (temp file in the same directory, fsync, rename).
// Returns false and fills `error` on failure; never throws (used from the preload).
// With create_dir, missing directories are made (safe_file::open_dir's checks still apply).
bool write_json_atomic(const std::string& path, const nlohmann::json& j, std::string* error,
                       bool create_dir = false);

}  // namespace hpcsens::record
