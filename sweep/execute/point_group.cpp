#include "sweep/execute/point_group.h"

#include <algorithm>
#include <stdexcept>

#include "sweep/knobs/resctrl_groups.h"
#include "sweep/spec/sweep_common.h"

namespace hpcsens::sweep {

void leave_point_groups(Journal& journal, JournalState& st) {
  const auto live = st.resctrl_groups;
  for (const auto& g : live) {
    if (auto err = remove_resctrl_group(machine_resctrl(), st.resctrl_root, g); !err.empty())
      throw std::runtime_error(err);
    journal.append({{"type", "resctrl_removed"}, {"utc", utc_now()}, {"group", g}});
    st.resctrl_groups.erase(std::remove(st.resctrl_groups.begin(), st.resctrl_groups.end(), g), st.resctrl_groups.end());
  }
}

std::string enter_point_group(Journal& journal, JournalState& st, const std::string& root, int point,
                              const std::string& schemata) {
  leave_point_groups(journal, st);
  const std::string name = resctrl_group_name(st.token, point);
  // Another program's lock stops the point before anything is journalled or made.
  const ResctrlLock lock(root, kResctrlLockWaitS);
  journal.append({{"type", "resctrl_group"}, {"utc", utc_now()}, {"root", root}, {"group", name}});
  st.resctrl_root = root;
  st.resctrl_groups.push_back(name);
  create_resctrl_group(machine_resctrl(), machine_sysfs(), root, name, schemata);
  return root + "/" + name + "/tasks";
}

}  // namespace hpcsens::sweep
