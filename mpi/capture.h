#pragma once
// Runs a short helper command (a launcher's --version, Slurm's sacct) and returns what it printed
// on stdout and stderr together, bounded in time and size: a helper that hangs or floods never
// hangs hpcsens. Its stdin is /dev/null; it runs in a process group of its own, which is killed
// at the end (children it left included).
#include <cstddef>
#include <string>
#include <vector>

namespace hpcsens::mpi {

struct Captured {
  bool started = false;  // false: posix_spawnp failed (not found, not executable)
  int status = -1;       // exit status, 128 + signal when killed; -1 when it did not end in time
  bool timed_out = false;
  std::string output;    // stdout and stderr interleaved, at most max_bytes
};

// argv[0] is looked up in PATH. extra_env ("NAME=value") is added to this process's environment.
Captured capture_output(const std::vector<std::string>& argv, double timeout_s,
                        const std::vector<std::string>& extra_env = {}, std::size_t max_bytes = 65536);

}  // namespace hpcsens::mpi
