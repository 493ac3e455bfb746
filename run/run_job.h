#pragma once
// Running one wrapped MPI job: detect the launcher, inject the preload into the ranks only,
// wait, and hand back the exit status and the record. Used by `hpcsens run` and by the sweep.
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "mpi/rank_mpi.h"

namespace hpcsens::run {

struct RunRequest {
  std::vector<std::string> argv;  // LAUNCHER ARGS... exactly as the user gave them
  std::string out_dir = "hpcsens-out";
  std::string events = "default";
  // Merged into the record's `config` after the job (the sweep's knob settings and rates).
  nlohmann::json config = nlohmann::json::object();
  double timeout_s = 0;  // 0: no limit; else the job's process group is killed after it
  std::string run_id;    // empty: generated (UTC time + pid)
  bool callsites = false;  // --callsites: the preload keeps its call-site table (HPCSENS_CALLSITES=1)
  int stack_depth = 1;     // --stack-depth K: frames per call site (HPCSENS_STACK_DEPTH; implies callsites)
  // Called on the record after the job, while the programs that ran are still in place: `hpcsens
  // run` resolves call-site names into it (report/callsite_names.h); empty: nothing added.
  std::function<void(nlohmann::json&)> name_sites;
  bool quiet = false;    // no warnings on stderr (they are still returned in RunResult)
  // More variables for the ranks' environment, this run only (the sweep's network-delay knob,
  // common/preload_env.h); they reach the ranks the way the preload's own settings do.
  std::vector<std::pair<std::string, std::string>> rank_env;
};

struct RunResult {
  int exit_status = 0;      // the job's exit status (128 + signal when killed by one)
  bool timed_out = false;
  std::string record_path;  // empty when no record was written
  std::string error;        // why there is no record, or our own failure; empty when fine
  bool complete = false;    // the record covers every rank through MPI_Finalize
  std::string launcher;     // launcher kind used ("openmpi", "singleton", ...)
  std::vector<std::string> warnings;  // said on stderr already (also with quiet); kept for callers
  bool error_warned = false;          // `error` was already said as one of the warnings
  bool refused = false;  // not started: bad request (an untrusted --out, a bad run id); exit 2
  bool write_failed = false;  // measured, but the record could not be written (`error` says where, why)
};

// `hpcsens run`'s exit status when no record was written because writing it failed, or when the
// job succeeded but left no record: distinct from the job's own status (which is printed), so a
// script never takes a lost record for success (EX_IOERR of sysexits.h). --keep-job-status
// returns the job's status instead.
inline constexpr int kExitNoRecord = 74;

// The exit status of `hpcsens run` for a finished job: the job's own, or kExitNoRecord when no
// record was written and either writing failed or the job's status would say all is well.
int run_exit_status(const RunResult& r, bool keep_job_status);

// Why a measured job left no rank data, from its wait(2) status: killed by a signal, stopped by
// --timeout, a non-zero exit; "was this an MPI program?" only for a clean exit.
std::string explain_no_ranks(int wait_status, bool timed_out, double timeout_s);

// Runs the job to completion (or timeout) with our settings injected into its ranks. Never
// throws for the job's sake: any failure of ours leaves the job running unmeasured.
RunResult run_job(const RunRequest& request);

// "20261121T063508Z-1234" (seq 0) or "20261121T063508Z-1234.2": sortable, and unique even when
// one process (the sweep) starts several jobs within a second.
std::string make_run_id(long long unix_seconds, int pid, int seq = 0);
// "2026-11-21T06:35:08Z"
std::string utc_iso8601(long long unix_seconds);
// The exit status a shell would report: the code, or 128 + signal number.
int exit_status_of(int wait_status);

// libhpcsens_preload.so, found relative to the running hpcsens binary (../lib/).
std::string find_preload_library();
// The preload built for the ranks' MPI (libhpcsens_preload_mpich.so for MPICH), in the same place;
// empty if it is not there.
std::string find_preload_library(mpi::RankMpi rank_mpi);

}  // namespace hpcsens::run
