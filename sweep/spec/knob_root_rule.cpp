#include "sweep/spec/knob_root_rule.h"

#include <unistd.h>

#include "common/checked_path.h"

namespace hpcsens::sweep {

std::string knob_root_problem(const std::string& root) {
  std::string why;
  bool untrusted = false;
  const int fd = safe_file::open_checked_dir(root, false, &why, &untrusted);
  if (fd >= 0) {
    ::close(fd);
    return "";
  }
  return untrusted ? why : "";
}

}  // namespace hpcsens::sweep
