#include "sweep/execute/progress.h"

#include <unistd.h>

#include <cstdio>

#include "common/text_escape.h"
#include "sweep/spec/sweep_common.h"

namespace hpcsens::sweep {
namespace {
std::string clock_text(double s) {
  const long t = long(s + 0.5);
  char buf[32];
  if (t >= 3600) std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
  else std::snprintf(buf, sizeof buf, "%ld:%02ld", t / 60, t % 60);
  return buf;
}
}  // namespace

Progress::Progress(int total, int already_done, bool emulated)
    : total_(total), start_done_(already_done), emulated_(emulated), tty_(::isatty(2)), start_s_(monotonic_s()) {}

std::string Progress::render(int done, int total, double elapsed_s, int done_this_session, int width) {
  const int filled = total > 0 ? done * width / total : width;
  std::string bar = "[" + std::string(std::size_t(filled), '#') + std::string(std::size_t(width - filled), '-') + "]";
  char buf[96];
  std::snprintf(buf, sizeof buf, " %d/%d %3d%%", done, total, total > 0 ? done * 100 / total : 100);
  std::string eta = "  ETA --:--";
  if (done >= total) eta = "  done in " + clock_text(elapsed_s);
  else if (done_this_session > 0)
    eta = "  ETA " + clock_text(elapsed_s / done_this_session * (total - done));
  return bar + buf + eta;
}

void Progress::update(int done, const std::string& what, bool finished) {
  if (!tty_ && !finished) return;
  const std::string line = std::string(emulated_ ? "EMULATED " : "") +
                           render(done, total_, monotonic_s() - start_s_, done - start_done_, 30) + "  " +
                           text::escape_for_message(what);  // labels come from the spec
  if (tty_) std::fprintf(stderr, "\r\033[K%s", line.c_str());
  else std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
}

void Progress::finish() {
  if (tty_) std::fprintf(stderr, "\n");
}

}  // namespace hpcsens::sweep
