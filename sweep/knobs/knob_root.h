#pragma once
// Knob trees (backends.sysfs_root, backends.resctrl_root, any future root) held to the owner rules
// of output paths (common/checked_path.h), and the one way the knob layer opens a file in them.
//
// Why: root writes knob files. A tree another user owns or can write lets that user plant a
// symlink (policy0/scaling_max_freq -> /etc/...) and turn root's write into theirs; restore then
// cannot put it back. So:
//  - at spec read, knob_root_problem() (sweep/spec/knob_root_rule.h) refuses a root whose path
//    has a directory owned by another user, or writable by group or others without the sticky
//    bit (the output-path rules, called, not copied);
//  - every knob read and write walks the path from "/" one component at a time
//    (openat(O_NOFOLLOW|O_DIRECTORY)), each directory checked by the same rules, and opens the
//    last component with O_NOFOLLOW|O_NONBLOCK (a FIFO neither hangs a read nor takes a write).
//    A symlink on the way is followed only where it is the kernel's own: the directory holding
//    it is on sysfs or resctrl (statfs f_type) and owned by root, and the link is root's. In a
//    plain directory (a test tree) no symlink is ever followed.
#include <string>

#include "sweep/spec/knob_root_rule.h"  // knob_root_problem: the rule at spec read

namespace hpcsens::sweep {

// statfs f_type of the kernel's own trees (include/uapi/linux/magic.h).
inline constexpr long kSysfsMagic = 0x62656572;
inline constexpr long kResctrlMagic = 0x7655821;

// Opens `path` (a knob file) with `flags` (O_RDONLY or O_WRONLY; O_NOFOLLOW, O_NONBLOCK and
// O_CLOEXEC are added) through sysfs_calls() (sysfs_io.h) by the walk above. Returns the
// descriptor of a regular file, or -1 with errno set and *why one line naming the path and the
// cause (a refused symlink or directory sets errno to ELOOP or EACCES).
int open_knob_file(const std::string& path, int flags, std::string* why);

// True when the directory `dirfd` is on sysfs or resctrl and owned by root: the kernel's own
// tree, whose symlinks only the kernel makes.
bool kernel_tree(int dirfd);

}  // namespace hpcsens::sweep
