#pragma once
// The sweep's resctrl group over its life in one journal: the sweep's own (one node) or one
// node's part of a multi-node sweep (nodes/<host>/, `--apply-point`). The group is journalled
// before its mkdir, so a kill -9 at any moment leaves a journal that names every group that may
// exist, and every restore removes what the journal names. It is made once, at the first point
// that needs it, and each point rewrites its MB: line (resctrl_groups.h: why not one per point).
#include <functional>
#include <string>

#include "sweep/journal/journal.h"

namespace hpcsens::sweep {

// Removes every group `st` names as live except the sweep's own ("hpcsens-<token>"): the
// per-point groups an earlier hpcsens journalled. Journals "resctrl_removed" for each. Throws
// runtime_error when one stays.
void leave_point_groups(Journal& journal, JournalState& st);

// Puts point `point`'s MB: line into the sweep's group under `root`, making (and first
// journalling) the group when it is not there. A group just made shows the kernel's maximum,
// which `check_max` (when given) gets before anything is written: it throws to stop the sweep
// when a value of the spec is above it. Returns the group's tasks file. Throws when resctrl
// refuses, with the kernel's reason.
std::string enter_point_group(Journal& journal, JournalState& st, const std::string& root, int point,
                              const std::string& schemata, const std::function<void(long)>& check_max = {});

}  // namespace hpcsens::sweep
