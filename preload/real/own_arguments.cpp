#include "preload/real/own_arguments.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>

namespace hpcsens::preload {

std::vector<std::string> own_arguments() {
  std::string all;
  if (const int fd = ::open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC); fd >= 0) {
    char buf[4096];
    for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) all.append(buf, static_cast<size_t>(n));
    ::close(fd);
  }
  std::vector<std::string> args;
  for (size_t b = 0; b < all.size();) {
    const size_t e = std::min(all.find('\0', b), all.size());
    args.push_back(all.substr(b, e - b));
    b = e + 1;
  }
  return args;
}

}  // namespace hpcsens::preload
