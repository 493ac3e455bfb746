#pragma once
// The sweep's resctrl group: one per sweep (per node), named for the sweep's token, made under
// the kernel doc's resctrl lock after its journal line when the first point needs it, its MB:
// line rewritten for every point, and removed (rmdir: the kernel moves any task left in it back
// to the default group) when the sweep restores: at its end, on an error or signal, or when
// `--restore` replays the journal. One group, not one per point: every mkdir takes a CLOSID and
// an RMID, and an rmdir'd group's RMID stays in limbo until its cache lines drain, so where
// RMIDs are scarce a new group per point fails ("Out of RMIDs", EBUSY). A restore removes only
// groups its journal names, and only names this sweep could have made: never another user's.
#include <string>
#include <vector>

#include "sweep/knobs/resctrl_fs.h"
#include "sweep/knobs/resctrl_mb.h"
#include "sweep/knobs/sysfs_io.h"

namespace hpcsens::sweep {

// "hpcsens-<token>".
std::string resctrl_group_name(const std::string& token);

// Why a journal's group must not be removed by the sweep with `token` ("" when it may): the
// root must be an absolute normal path, the name this sweep's own ("hpcsens-<token>", or the
// "hpcsens-<token>-pNN" of a journal written by an earlier hpcsens).
std::string resctrl_group_problem(const std::string& root, const std::string& name, const std::string& token);

// How long the sweep waits for another program's resctrl lock before it gives up.
inline constexpr double kResctrlLockWaitS = 10;

// The kernel's reason for its last refusal, " (kernel: <info/last_cmd_status>)" escaped for a
// message, or "" when it says "ok" or nothing.
std::string resctrl_kernel_reason(const SysfsIo& io, const std::string& root);

// mkdir root/name; the caller holds the resctrl lock. Returns the new group's MB: values: the
// kernel starts a group at its maximum (how AMD's maximum is read). A refusal throws
// runtime_error with the errno text and the kernel's reason ("Out of CLOSIDs", "Out of RMIDs").
std::vector<MbDomain> make_resctrl_group(ResctrlFs& fs, const SysfsIo& io, const std::string& root,
                                         const std::string& name);

// Writes `schemata` (an MB: line) into root/name and checks the group holds exactly it (a
// kernel that keeps other values than info/MB says stops the point instead of being recorded
// wrongly). Throws runtime_error with the kernel's reason.
void write_group_schemata(ResctrlFs& fs, const SysfsIo& io, const std::string& root, const std::string& name,
                          const std::string& schemata);

// make_resctrl_group + write_group_schemata; a refused write removes the new group again.
void create_resctrl_group(ResctrlFs& fs, const SysfsIo& io, const std::string& root, const std::string& name,
                          const std::string& schemata);

// Why the requested `values` cannot all run under a group whose kernel maximum is `kernel_max`
// (the largest above it named), "" when they can. Pure.
std::string mb_values_over_max(const std::vector<long>& values, long kernel_max, const std::string& unit);

// rmdir root/name under the resctrl lock. "" when removed or already gone (then *was_there,
// when given, says which); else what failed.
std::string remove_resctrl_group(ResctrlFs& fs, const std::string& root, const std::string& name,
                                 bool* was_there = nullptr);

}  // namespace hpcsens::sweep
