#pragma once
// The sweep's stop request: SIGINT/SIGTERM/SIGHUP set a flag that every wait checks, so the
// sweep ends the current job, restores knobs and exits 128+signal.
#include <csignal>

namespace hpcsens::sweep {

// Installs the handlers (without SA_RESTART, so blocking waits return).
void install_stop_handlers();
// The signal that asked the sweep to stop, 0 when none.
int stop_signal();
// The flag itself, for waits that poll it.
const volatile std::sig_atomic_t* stop_flag();

}  // namespace hpcsens::sweep
