#pragma once
// The sweep controller: plan -> save knobs -> for each run: apply the point's knobs, calibrate,
// run (retrying failures), journal -> restore -> summary -> `hpcsens fit`. Knobs are restored on
// normal end, on error and on SIGINT/SIGTERM/SIGHUP.
#include <functional>
#include <string>

#include "run/run_job.h"
#include "sweep/spec.h"

namespace hpcsens::sweep {

using JobRunner = std::function<run::RunResult(const run::RunRequest&)>;

struct SweepOptions {
  std::string out_dir;     // overrides spec.output_dir when set
  bool dry_run = false;
  bool resume = false;
  bool run_fit = true;
  std::string hpcsens_exe;  // for `hpcsens fit` and per-node knob commands
  std::string stream_exe;   // the calibrator
  JobRunner run_job;        // run::run_job in the CLI; unset: real runs are refused
};

// Returns the process exit status: 0 all runs done, 1 some runs failed every attempt or the
// sweep failed, 128+sig when stopped by a signal (after restoring). Throws InputError (exit 2)
// for bad specs and unusable output directories.
int run_sweep(const SweepSpec& spec, const SweepOptions& opt);

// `hpcsens sweep --restore DIR`: puts back the values saved in DIR's journal. Returns 0 when
// everything was restored (or there was nothing to restore), 1 otherwise.
int restore_from_journal(const std::string& dir);

// `--apply-point N --dir D` on one node of a multi-node allocation: saves this node's originals
// in D/nodes/<host>/ (first time only) and applies point N.
int apply_point_here(const SweepSpec& spec, int point, const std::string& dir);

// Installs the SIGINT/SIGTERM/SIGHUP handlers (without SA_RESTART, so blocking waits return).
void install_stop_handlers();
// The signal that asked the sweep to stop, 0 when none.
int stop_signal();

}  // namespace hpcsens::sweep
