#pragma once
// A sweep point's resctrl group: named for the sweep (its token) and the point, created under
// the kernel doc's resctrl lock after its journal line, its MB: line written, and removed
// (rmdir: the kernel moves any task left in it back to the default group) when the point ends,
// the sweep restores, or `--restore` replays the journal. A restore removes only groups its
// journal names, and only names this sweep could have made: never a group of another user.
#include <string>

#include "sweep/knobs/resctrl_fs.h"
#include "sweep/knobs/sysfs_io.h"

namespace hpcsens::sweep {

// "hpcsens-<token>-p03".
std::string resctrl_group_name(const std::string& token, int point);

// Why a journal's group must not be removed by the sweep with `token` ("" when it may): the
// root must be an absolute normal path, the name this sweep's own pattern.
std::string resctrl_group_problem(const std::string& root, const std::string& name, const std::string& token);

// How long the sweep waits for another program's resctrl lock before it gives up.
inline constexpr double kResctrlLockWaitS = 10;

// mkdir root/name and writes `schemata` (an MB: line) into it; the caller holds the resctrl
// lock (ResctrlLock), taken before it journals the group. A write the kernel refuses removes
// the group again and throws runtime_error with the kernel's reason (info/last_cmd_status,
// read through `io`).
void create_resctrl_group(ResctrlFs& fs, const SysfsIo& io, const std::string& root, const std::string& name,
                          const std::string& schemata);

// rmdir root/name under the resctrl lock. "" when removed or already gone (then *was_there,
// when given, says which); else what failed.
std::string remove_resctrl_group(ResctrlFs& fs, const std::string& root, const std::string& name,
                                 bool* was_there = nullptr);

}  // namespace hpcsens::sweep
