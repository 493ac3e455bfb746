#pragma once
// Putting knob files back to their saved values. Shared by the normal end of a sweep, its
// error and signal paths, and `hpcsens sweep --restore DIR` after a kill -9.
#include <string>
#include <vector>

#include "sweep/knobs/sysfs_io.h"

namespace hpcsens::sweep {

// Reads the current value of every file (used to save originals before the first change).
// Throws std::runtime_error naming a file that cannot be read.
std::vector<FileWrite> save_files(const SysfsIo& io, const std::vector<std::string>& paths);

// A saved file restore_files leaves alone, and why. scaling_setspeed reads "<unsupported>" under
// every governor but userspace and cannot be written then; what brings that state back is
// restoring the governor, so claiming the file "restored" by writing it would be a lie (and on a
// real kernel the write fails).
struct RestoreSkip {
  std::string path;
  std::string reason;  // e.g. "was <unsupported> (governor ondemand), restored by restoring the governor"
};

// The saved files that restore_files will skip, in saved order. Pure: the dry run lists them
// from the values it would save, the restore from the values it did save.
std::vector<RestoreSkip> restore_skips(const std::vector<FileWrite>& saved);

struct RestoreResult {
  std::vector<FileWrite> restored;   // now hold their saved value (written, or already right)
  std::vector<RestoreSkip> skipped;  // see restore_skips
  std::vector<std::string> errors;   // one message per failure (empty: nothing failed)
};

// Writes the saved values back. Per directory: a min/max pair in the order that keeps
// min <= max, then scaling_governor, then scaling_setspeed (only when its saved value is a
// frequency under the userspace governor). Values that are already right are not written.
// Keeps going past a failing file.
RestoreResult restore_files(SysfsIo& io, const std::vector<FileWrite>& saved);

// One line for the user: "restored 6 knob files to their original values; 2 skipped: ...".
std::string restore_summary(const RestoreResult& r);

}  // namespace hpcsens::sweep

namespace hpcsens::sweep {

// Why a journalled file must not be written by --restore ("" when it may): the path must be
// absolute and normal (no "..", ".", "//"), lie below the recorded sysfs root, name a file
// some knob backend writes, and its directory must resolve (symlinks followed) below the
// root too. The value must be a plain sysfs token. The journal is checked, never trusted.
std::string restore_target_problem(const FileWrite& f, const std::string& root);

}  // namespace hpcsens::sweep
