#pragma once
// The sweep controller: plan -> lock the directory (and the machine) -> save knobs -> run every
// pending run (apply the point's knobs, calibrate, run with retries, journal) -> restore ->
// summary -> `hpcsens fit`. Knobs are restored on normal end, on error and on
// SIGINT/SIGTERM/SIGHUP; after a kill -9 by `--restore`.
#include <string>

#include "sweep/spec/spec.h"
#include "sweep/process/stop.h"
#include "sweep/execute/sweep_options.h"

namespace hpcsens::sweep {

// Returns the process exit status: 0 all runs done, 1 some runs failed every attempt or the
// sweep failed, 128+sig when stopped by a signal (after restoring). Throws InputError (exit 2)
// for bad specs, unusable or busy output directories and a machine held by another sweep.
int run_sweep(const SweepSpec& spec, const SweepOptions& opt);

// `hpcsens sweep --restore DIR`: puts back the values saved in DIR's journal. Returns 0 when
// everything was restored (or there was nothing to restore), 1 otherwise.
int restore_from_journal(const std::string& dir);

// `--apply-point N --dir D` on one node of a multi-node allocation: saves this node's originals
// in D/nodes/<host>/ (first time only) and applies point N.
int apply_point_here(const SweepSpec& spec, int point, const std::string& dir);

}  // namespace hpcsens::sweep
