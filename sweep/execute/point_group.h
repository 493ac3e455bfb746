#pragma once
// A point's resctrl group over its life in one journal: the sweep's own (one node) or one
// node's part of a multi-node sweep (nodes/<host>/, `--apply-point`). Each group is journalled
// before its mkdir, so a kill -9 at any moment leaves a journal that names every group that
// may exist, and every restore removes what the journal names.
#include <string>

#include "sweep/journal/journal.h"

namespace hpcsens::sweep {

// Removes every group `st` names as live (an earlier point's, or an earlier attempt's before a
// kill -9), journalling "resctrl_removed" for each. Throws runtime_error when one stays.
void leave_point_groups(Journal& journal, JournalState& st);

// Leaves the live groups, then journals and makes the group of `point` (named for st.token)
// under `root` with its MB: line. Returns the group's tasks file. Throws when resctrl refuses.
std::string enter_point_group(Journal& journal, JournalState& st, const std::string& root, int point,
                              const std::string& schemata);

}  // namespace hpcsens::sweep
