#include "sweep/process/stop.h"

#include <signal.h>

#include <initializer_list>

namespace hpcsens::sweep {
namespace {

volatile std::sig_atomic_t g_stop = 0;

void on_stop_signal(int sig) { g_stop = sig; }

}  // namespace

void install_stop_handlers() {
  struct sigaction sa{};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: a blocking wait returns and sees the flag
  for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaction(s, &sa, nullptr);
}

int stop_signal() { return g_stop; }

const volatile std::sig_atomic_t* stop_flag() { return &g_stop; }

}  // namespace hpcsens::sweep
