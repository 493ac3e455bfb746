#pragma once
// Running one wrapped MPI job: detect the launcher, inject the preload into the ranks only,
// wait, and hand back the exit status and the record. Used by `hpcsens run` and by the sweep.
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hpcsens::run {

struct RunRequest {
  std::vector<std::string> argv;  // LAUNCHER ARGS... exactly as the user gave them
  std::string out_dir = "hpcsens-out";
  std::string events = "default";
  // Merged into the record's `config` after the job (the sweep's knob settings and rates).
  nlohmann::json config = nlohmann::json::object();
  double timeout_s = 0;  // 0: no limit; else the job's process group is killed after it
  std::string run_id;    // empty: generated (UTC time + pid)
};

struct RunResult {
  int exit_status = 0;      // the job's exit status (128 + signal when killed by one)
  bool timed_out = false;
  std::string record_path;  // empty when no record was written
  std::string error;        // why there is no record, or our own failure; empty when fine
};

RunResult run_job(const RunRequest& request);

// libhpcsens_preload.so, found relative to the running hpcsens binary (../lib/).
std::string find_preload_library();

}  // namespace hpcsens::run
