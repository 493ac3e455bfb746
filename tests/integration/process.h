#pragma once
// Runs a command for a test: captures stdout and stderr, bounded by a timeout after which the
// whole process group is killed, so a hanging job fails the test instead of hanging the suite.
#include <string>
#include <vector>

namespace hpcsens::testing {

struct ProcessResult {
  int exit_status = -1;  // code, or 128 + signal
  bool timed_out = false;
  std::string out;
  std::string err;
  double seconds = 0;
};

ProcessResult run_process(const std::vector<std::string>& argv, double timeout_s);

// The same for a command line split on white space (no quoting: for tests whose paths and
// arguments have no spaces).
ProcessResult run_words(const std::string& command_line, double timeout_s);

}  // namespace hpcsens::testing
