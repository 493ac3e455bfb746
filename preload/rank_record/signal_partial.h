#pragma once
// A rank killed by a signal (the launcher tearing the job down after another rank's MPI_Abort, a
// batch system's SIGTERM at the time limit, Ctrl-C) leaves its partial record from the signal
// handler itself: every step there is async-signal-safe (openat, write, renameat2, clock_gettime;
// the counters are static arrays; no allocation, no stdio, no lock). What cannot be known without
// allocating (the job's description, host, start time) is formatted when the handler is armed.
// SIGKILL cannot be caught: such a rank is counted as lost by `hpcsens run` (collect_record.h).
#include <string>

#include "preload/account/clock.h"

namespace hpcsens::preload {

struct SignalPartialSetup {
  std::string out_dir;
  std::string run_id;
  int rank = 0;
  int pid = 0;
  // The partial record's text up to the rank object's first dynamic field: the whole document
  // through `"ranks":[{"rank":N,...,` (signal_partial_head builds it). t1 (arm_signal_partial's
  // argument) starts the rank's wall time, as in the full record.
  std::string head;
  const TickClock* ticks = nullptr;  // the rate of the call clock, measured up to the signal
};

// The fixed start of the partial record for `job` (a JSON object) and the rank's static fields.
std::string signal_partial_head(const std::string& job_json, int rank, const std::string& host_json, int pid,
                                double t0, double t1);

// Installs the handler for SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGXCPU and the crash signals
// (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) wherever the
// program left the default action (a handler of the program or its MPI is never replaced).
// The handler writes once, restores the default action and re-raises, so the process ends with
// the same signal as without us. Returns "" or why nothing was armed.
std::string arm_signal_partial(SignalPartialSetup setup, double t1);
// From MPI_Finalize and the ordinary partial path: the handler no longer writes (the record is
// being written another way) and the default actions are back.
void disarm_signal_partial() noexcept;

}  // namespace hpcsens::preload
