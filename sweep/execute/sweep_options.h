#pragma once
// What the command line asks of one sweep.
#include <string>

#include "sweep/execute/isolated_run.h"

namespace hpcsens::sweep {

struct SweepOptions {
  std::string out_dir;     // overrides spec.output_dir when set
  bool dry_run = false;
  bool resume = false;
  bool retry_skipped = false;  // with resume: run again the runs skipped after their retries
  bool run_fit = true;
  std::string hpcsens_exe;  // for `hpcsens fit` and per-node knob commands
  std::string stream_exe;   // the calibrator
  JobRunner run_job;        // run::run_job in the CLI; unset: real runs are refused
};

}  // namespace hpcsens::sweep
