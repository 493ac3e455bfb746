#pragma once
// Progress bar with ETA on stderr: redrawn in place on a terminal, one line per run otherwise
// (logs and CI), so the output is never a wall of carriage returns.
#include <string>

namespace hpcsens::sweep {

class Progress {
 public:
  Progress(int total, int already_done, bool emulated);
  // `what` describes the run that starts (finished = false) or just ended. Off a terminal only
  // ended runs are printed, one line each.
  void update(int done, const std::string& what, bool finished = true);
  void finish();

  // "[#####-----] 12/36  33%  ETA 1:02" — pure, for tests.
  static std::string render(int done, int total, double elapsed_s, int done_this_session, int width);

 private:
  int total_, start_done_;
  bool emulated_, tty_;
  double start_s_;
};

}  // namespace hpcsens::sweep
