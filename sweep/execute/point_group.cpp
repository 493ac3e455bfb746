#include "sweep/execute/point_group.h"

#include <sys/stat.h>

#include <algorithm>
#include <stdexcept>

#include "common/errors.h"
#include "sweep/knobs/resctrl_groups.h"
#include "sweep/spec/sweep_common.h"

namespace hpcsens::sweep {
namespace {

bool is_live(const JournalState& st, const std::string& name) {
  return std::find(st.resctrl_groups.begin(), st.resctrl_groups.end(), name) != st.resctrl_groups.end();
}

bool group_dir_exists(const std::string& path) {
  struct stat sb {};
  return ::lstat(path.c_str(), &sb) == 0 && S_ISDIR(sb.st_mode);
}

}  // namespace

void leave_point_groups(Journal& journal, JournalState& st) {
  const auto live = st.resctrl_groups;
  for (const auto& g : live) {
    if (g == resctrl_group_name(st.token)) continue;
    if (auto err = remove_resctrl_group(machine_resctrl(), st.resctrl_root, g); !err.empty())
      throw std::runtime_error(err);
    journal.append({{"type", "resctrl_removed"}, {"utc", utc_now()}, {"group", g}});
    st.resctrl_groups.erase(std::remove(st.resctrl_groups.begin(), st.resctrl_groups.end(), g), st.resctrl_groups.end());
  }
}

std::string enter_point_group(Journal& journal, JournalState& st, const std::string& root, int point,
                              const std::string& schemata, const std::function<void(long)>& check_max) {
  leave_point_groups(journal, st);
  const std::string name = resctrl_group_name(st.token);
  // Another program's lock stops the point before anything is journalled or made.
  const ResctrlLock lock(root, kResctrlLockWaitS);
  try {
    // A group journalled under another root (a spec changed between --resume) is not ours here.
    if (!is_live(st, name) || st.resctrl_root != root || !group_dir_exists(root + "/" + name)) {
      if (!is_live(st, name) || st.resctrl_root != root) {
        journal.append({{"type", "resctrl_group"}, {"utc", utc_now()}, {"root", root}, {"group", name}});
        st.resctrl_root = root;
        if (!is_live(st, name)) st.resctrl_groups.push_back(name);
      }
      const auto fresh = make_resctrl_group(machine_resctrl(), machine_sysfs(), root, name);
      long kernel_max = 0;
      for (const auto& d : fresh) kernel_max = std::max(kernel_max, d.value);
      if (check_max) check_max(kernel_max);
    }
    write_group_schemata(machine_resctrl(), machine_sysfs(), root, name, schemata);
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& e) {
    throw std::runtime_error("point " + std::to_string(point) + ": " + e.what());
  }
  return root + "/" + name + "/tasks";
}

}  // namespace hpcsens::sweep
