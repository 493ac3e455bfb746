#pragma once
// Turning raw per-rank counts into the run record. Pure (no MPI, no PAPI, no files), so the
// record assembly is tested without launching anything.
#include <ctime>
#include <functional>
#include <string>
#include <vector>

#include "preload/account/accounting.h"
#include "record/run_record.h"

namespace hpcsens::preload {

bool is_io(Category c);
bool is_read(Category c);
bool is_write(Category c);
// "posix", "stdio" or "mpiio" for an I/O category, nullptr for MPI time.
const char* io_class(Category c);

// One rank's record from its merged call totals (in ticks of `seconds_per_tick`) and its McCalpin
// clock readings (seconds).
// MPI time = intercepted non-I/O calls; I/O time = POSIX and MPI-IO calls; compute = wall - both,
// floored at 0 (threads inside MPI at the same time can sum to more than the wall span).
record::RankRecord make_rank_record(const CallTotals& totals, double seconds_per_tick, int rank, const std::string& host,
                                    int pid, double t0, double t1, double t2, double t3);

struct JobInfo {
  std::vector<std::string> command;
  std::string launcher;
  std::string mpi_library;
  std::string start_utc;
  std::string program;  // program_label of rank 0's argv
};

// The job section of a record: what JobInfo says, the rank count and the hosts in first-seen order.
void set_job(record::Job& out, const JobInfo& job, int nranks, std::vector<std::string> hosts);

// The job's counters status from its ranks', added in rank order: "ok" when every rank's is; one
// status shared by every rank (the usual case, e.g. "Top-Down unavailable: ..." on a VM) said
// once without a rank; otherwise the first bad rank's, named.
class CountersStatusOf {
 public:
  void add(int rank, const std::string& status);
  std::string result() const { return first_bad_.empty() ? "ok" : differ_ ? first_bad_ : first_; }

 private:
  bool any_ = false, differ_ = false;
  std::string first_, first_bad_;
};

// What a rank runs, for titles: the executable's file name, and for an interpreter (python3,
// Rscript, julia, perl, ...) also its script's file name ("python3 run.py"); "" for no argv.
std::string program_label(const std::vector<std::string>& argv);

// The job record from every rank's record: ranks sorted, hosts in first-seen order, timing bounds
// and imbalance filled, counters_status "ok" only if every rank's is, complete only if every rank is.
record::RunRecord assemble_run(const JobInfo& job, std::vector<record::RankRecord> ranks);

// HPCSENS_COMMAND holds a JSON array of strings; anything else falls back to `fallback`.
std::vector<std::string> command_from_env(const char* json_text,
                                          const std::vector<std::string>& fallback);
// HPCSENS_LAUNCHER if set, else guessed from the variables each launcher sets in its ranks.
std::string detect_launcher(const std::function<const char*(const char*)>& getenv_fn);
std::string first_line(const std::string& text);
std::string utc_iso8601(std::time_t t);
std::string make_run_id(std::time_t t, int pid);
// The names the record and a rank's partial record get, with "*" for the random part chosen when
// they are written (run/run_files.h); for messages written before the name is known.
std::string record_path(const std::string& out_dir, const std::string& run_id);
std::string partial_path(const std::string& out_dir, const std::string& run_id, int rank);

}  // namespace hpcsens::preload
