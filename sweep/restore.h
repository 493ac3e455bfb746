#pragma once
// Putting knob files back to their saved values. Shared by the normal end of a sweep, its
// error and signal paths, and `hpcsens sweep --restore DIR` after a kill -9.
#include <string>
#include <vector>

#include "sweep/sysfs_io.h"

namespace hpcsens::sweep {

// Reads the current value of every file (used to save originals before the first change).
// Throws std::runtime_error naming a file that cannot be read.
std::vector<FileWrite> save_files(const SysfsIo& io, const std::vector<std::string>& paths);

// Writes the saved values back. Per directory: a min/max pair in the order that keeps
// min <= max, then scaling_governor, then scaling_setspeed (meaningful only under the
// userspace governor). Values that are already right are not written. Keeps going past a
// failing file and returns one message per failure (empty: all restored).
std::vector<std::string> restore_files(SysfsIo& io, const std::vector<FileWrite>& saved);

}  // namespace hpcsens::sweep
