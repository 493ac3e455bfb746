#pragma once
// The owner rule for knob trees (backends.sysfs_root, backends.resctrl_root, any future root):
// the rules of output paths (common/checked_path.h), called, not copied. Here in spec/ so the
// spec reader applies it at the field's line; sweep/knobs/knob_root.h opens files inside a tree.
#include <string>

namespace hpcsens::sweep {

// Why `root` must not be used as a knob tree, or "": names the offending directory and the cause
// (a directory on the path owned by another user, or writable by group or others without the
// sticky bit, or a symlink another user owns). A root that does not exist or cannot be opened is
// not refused here: the backend that needs it says what is missing.
std::string knob_root_problem(const std::string& root);

}  // namespace hpcsens::sweep
