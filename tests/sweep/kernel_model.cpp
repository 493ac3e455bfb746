// The rules of the kernel model (see kernel_model.h); the trees it starts from are in
// kernel_model_layouts.cpp.
#include "kernel_model.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <mutex>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "kernel_model_tree.h"

namespace fs = std::filesystem;

namespace hpcsens::sweep::testing {
namespace {

// The errno a driver answers a write(2) with.
struct Refused {
  int err;
};

[[noreturn]] void refuse(const std::string&, const std::string&, int err) { throw Refused{err}; }

bool parse_khz(const std::string& v, long* out) {
  if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos || v.size() > 9) return false;
  *out = std::stol(v);
  return true;
}

const std::set<std::string> kWritable = {"scaling_governor", "scaling_setspeed", "scaling_min_freq",
                                         "scaling_max_freq", "no_turbo", "boost", "min_freq_khz", "max_freq_khz"};

void write_policy(ModelTree& t, const std::string& pol, const std::string& name, const std::string& value,
                  const std::string& path) {
  long khz = 0;
  if (name == "scaling_governor") {
    std::istringstream avail(t.get(pol + "/scaling_available_governors"));
    std::set<std::string> govs{std::istream_iterator<std::string>(avail), {}};
    if (!govs.count(value)) refuse(path, value, EINVAL);
    const std::string old = t.get(pol + "/scaling_governor");
    // The userspace governor starts at the current clock (cpufreq_userspace.c).
    if (value == "userspace" && old != "userspace") t.set_hidden(t.policy_key(pol) + ".setspeed", t.get(pol + "/scaling_cur_freq"));
    if (value != "userspace") t.set_hidden(t.policy_key(pol) + ".setspeed", "");
    t.set(pol + "/scaling_governor", value);
    return;
  }
  if (!parse_khz(value, &khz)) refuse(path, value, EINVAL);
  if (name == "scaling_setspeed") {
    if (t.get(pol + "/scaling_governor") != "userspace") refuse(path, value, EINVAL);
    t.set_hidden(t.policy_key(pol) + ".setspeed", std::to_string(khz));
    return;
  }
  const bool is_max = name == "scaling_max_freq";
  const long new_max = is_max ? t.visible_max(khz) : t.visible_max(t.request(pol, true));
  const long new_min_req = is_max ? t.request(pol, false) : khz;
  if (t.resolve(new_min_req, false) > new_max) refuse(path, value, EINVAL);
  t.set_hidden(t.policy_key(pol) + (is_max ? ".max_req" : ".min_req"), std::to_string(khz));
}

void write_uncore(ModelTree& t, const std::string& dir, const std::string& name, const std::string& value,
                  const std::string& path) {
  long khz = 0;
  if (!parse_khz(value, &khz)) refuse(path, value, EINVAL);
  khz = khz / 100000 * 100000;  // the driver keeps 100 MHz units
  if (khz == 0 || khz > 12700000) refuse(path, value, EINVAL);
  const bool is_max = name == "max_freq_khz";
  const long other = std::stol(t.get(dir + (is_max ? "/min_freq_khz" : "/max_freq_khz")));
  // The driver does not check min <= max; what the hardware then does is undefined, so the
  // model refuses it, which holds the sweep to its write order.
  if (is_max ? khz < other : khz > other) refuse(path, value, EINVAL);
  t.set(dir + "/" + name, std::to_string(khz));
  // TPMI: a package-level write reaches every fabric cluster of the package, I/O dies included.
  const std::string base = dir.substr(dir.rfind('/') + 1);
  if (base.rfind("package_", 0) == 0 && t.cfg("uncore") == "tpmi") {
    const std::string pkg = std::to_string(std::stoi(base.substr(8, 2)));
    for (const auto& u : t.uncore_dirs("uncore"))
      if (t.get(u + "/package_id") == pkg) t.set(u + "/" + name, std::to_string(khz));
  }
}

// A write(2) to a modelled attribute: the driver's rules, applied to the tree.
void model_write(ModelTree& t, const std::string& path, std::string value) {
  if (!value.empty() && value.back() == '\n') value.pop_back();  // kstrto* accept one newline
  if (t.inactive_policy_of(path)) refuse(path, value, EBUSY);
  const std::string dir = path.substr(0, path.rfind('/')), name = path.substr(path.rfind('/') + 1);
  if (name == "no_turbo" || name == "boost") {
    if (value != "0" && value != "1") refuse(path, value, EINVAL);
    t.set(t.rel(path), value);
  } else if (name == "min_freq_khz" || name == "max_freq_khz") {
    write_uncore(t, t.rel(dir), name, value, path);
  } else {
    write_policy(t, t.rel(dir), name, value, path);
  }
  t.refresh();
}

// The system calls under RealSysfs: files of a modelled tree answer as the kernel's attributes
// do, every other file (resctrl trees, plain test trees) as itself.
class KernelCalls : public SysfsCalls {
 public:
  int openat(int dirfd, const char* name, int flags) override {
    const int fd = ::openat(dirfd, name, flags);
    if (fd < 0) return fd;
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return fd;
    char buf[4096];
    const ssize_t n = ::readlink(("/proc/self/fd/" + std::to_string(fd)).c_str(), buf, sizeof buf - 1);
    const std::string path = n > 0 ? std::string(buf, std::size_t(n)) : "";
    if (!ModelTree::of(path)) return fd;
    // kernfs refuses a write open of an attribute without a store method.
    if ((flags & O_ACCMODE) != O_RDONLY && !kWritable.count(path.substr(path.rfind('/') + 1))) {
      ::close(fd);
      errno = EACCES;
      return -1;
    }
    std::lock_guard<std::mutex> lock(mu_);
    files_[fd] = path;
    return fd;
  }
  ssize_t read(int fd, void* buf, std::size_t n) override {
    const std::string path = modelled(fd);
    if (!path.empty() && ModelTree::of(path)->inactive_policy_of(path)) {
      errno = EBUSY;
      return -1;
    }
    return ::read(fd, buf, n);
  }
  ssize_t write(int fd, const void* buf, std::size_t n) override {
    const std::string path = modelled(fd);
    if (path.empty()) return ::write(fd, buf, n);
    try {
      auto t = ModelTree::of(path);
      model_write(*t, path, std::string(static_cast<const char*>(buf), n));
    } catch (const Refused& r) {
      errno = r.err;
      return -1;
    }
    return ssize_t(n);
  }
  int ftruncate(int fd, off_t size) override { return modelled(fd).empty() ? ::ftruncate(fd, size) : 0; }
  int close(int fd) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      files_.erase(fd);
    }
    return ::close(fd);
  }

 private:
  std::string modelled(int fd) {
    std::lock_guard<std::mutex> lock(mu_);
    const auto it = files_.find(fd);
    return it == files_.end() ? "" : it->second;
  }
  std::mutex mu_;
  std::map<int, std::string> files_;  // descriptor -> attribute path
};

KernelCalls g_calls;
int g_models = 0;

}  // namespace

KernelModel::KernelModel() {
  if (g_models++ == 0) set_sysfs_calls(&g_calls);
}

KernelModel::~KernelModel() {
  if (--g_models == 0) set_sysfs_calls(nullptr);
}

std::map<std::string, std::string> snapshot(const std::string& root) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (!e.is_regular_file()) continue;
    std::ifstream in(e.path());
    std::stringstream ss;
    ss << in.rdbuf();
    out[fs::relative(e.path(), root).string()] = ss.str();
  }
  return out;
}

}  // namespace hpcsens::sweep::testing
