#include "sweep/knobs/sysfs_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "sweep/knobs/knob_root.h"

namespace hpcsens::sweep {

int SysfsCalls::openat(int dirfd, const char* name, int flags) { return ::openat(dirfd, name, flags); }
ssize_t SysfsCalls::read(int fd, void* buf, std::size_t n) { return ::read(fd, buf, n); }
ssize_t SysfsCalls::write(int fd, const void* buf, std::size_t n) { return ::write(fd, buf, n); }
int SysfsCalls::ftruncate(int fd, off_t size) { return ::ftruncate(fd, size); }
int SysfsCalls::close(int fd) { return ::close(fd); }

namespace {
SysfsCalls* g_sysfs_calls = nullptr;
// A sysfs attribute is at most a page; resctrl's schemata a few lines per domain. A file beyond
// this is not a knob file.
constexpr std::size_t kMaxKnobFile = 1 << 20;
}  // namespace

SysfsCalls& sysfs_calls() {
  static SysfsCalls real;
  return g_sysfs_calls ? *g_sysfs_calls : real;
}

void set_sysfs_calls(SysfsCalls* calls) { g_sysfs_calls = calls; }

SysfsRead RealSysfs::read_file(const std::string& path) const {
  SysfsRead r;
  const int fd = open_knob_file(path, O_RDONLY, &r.why);
  if (fd < 0) {
    r.error = errno;
    return r;
  }
  std::string s;
  char buf[4096];
  for (;;) {
    const ssize_t n = sysfs_calls().read(fd, buf, sizeof buf);
    if (n == 0) break;
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 || s.size() + std::size_t(n) > kMaxKnobFile) {
      r.error = n < 0 ? errno : EFBIG;
      r.why = "cannot read " + path + ": " + std::strerror(r.error);
      sysfs_calls().close(fd);
      return r;
    }
    s.append(buf, std::size_t(n));
  }
  sysfs_calls().close(fd);
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  r.value = std::move(s);
  return r;
}

void RealSysfs::write(const std::string& path, const std::string& value) {
  // One write(2) of the whole value: sysfs attributes take a value per write call. Never
  // created, never through a symlink (knob_root.h). No O_TRUNC: sysfs ignores it, and on a fake
  // tree (tests) a sweep killed between truncate and write would leave an empty file; the
  // ftruncate after the write trims a longer old value there and is a no-op on sysfs.
  std::string why;
  const int fd = open_knob_file(path, O_WRONLY, &why);
  if (fd < 0) throw std::runtime_error("cannot open " + path + " for writing: " + why);
  const std::string line = value + "\n";
  const ssize_t n = sysfs_calls().write(fd, line.data(), line.size());
  const int err = errno;
  if (n == ssize_t(line.size())) (void)!sysfs_calls().ftruncate(fd, off_t(line.size()));
  sysfs_calls().close(fd);
  if (n != ssize_t(line.size()))
    throw std::runtime_error("cannot write '" + value + "' to " + path + ": " + std::strerror(n < 0 ? err : EIO));
}

namespace {
SysfsIo* g_machine_sysfs = nullptr;
}  // namespace

SysfsIo& machine_sysfs() {
  static RealSysfs real;
  return g_machine_sysfs ? *g_machine_sysfs : real;
}

void set_machine_sysfs(SysfsIo* io) { g_machine_sysfs = io; }

SysfsRead DryRunSysfs::read_file(const std::string& path) const {
  auto it = overlay_.find(path);
  if (it != overlay_.end()) return {it->second, 0, ""};
  return machine_sysfs().read_file(path);
}

void DryRunSysfs::write(const std::string& path, const std::string& value) {
  overlay_[path] = value;
  writes_.push_back({path, value});
}

std::vector<FileWrite> DryRunSysfs::take_writes() {
  std::vector<FileWrite> out;
  out.swap(writes_);
  return out;
}

std::vector<std::string> list_subdirs(const std::string& dir, const std::string& prefix) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const auto name = e.path().filename().string();
    if (name.rfind(prefix, 0) == 0 && e.is_directory(ec)) out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool write_max_first(long current_min, long current_max, long new_min, long new_max) {
  (void)current_min;
  (void)new_max;
  // Writing min first is safe unless the new min lies above the current max; then raising max
  // first keeps the window valid, and the following min write cannot cross it (new_min <= new_max).
  return new_min > current_max;
}

void write_min_max(SysfsIo& io, const std::string& min_path, const std::string& max_path,
                   long new_min, long new_max) {
  auto as_long = [&](const std::string& p) -> long {
    const auto r = io.read_file(p);
    const auto& v = r.value;
    if (!v) throw std::runtime_error(r.why.empty() ? "cannot read " + p : r.why);
    try {
      return std::stol(*v);
    } catch (const std::exception&) {
      throw std::runtime_error(p + " holds '" + *v + "', not a number");
    }
  };
  const long cur_min = as_long(min_path), cur_max = as_long(max_path);
  if (write_max_first(cur_min, cur_max, new_min, new_max)) {
    if (cur_max != new_max) io.write(max_path, std::to_string(new_max));
    if (cur_min != new_min) io.write(min_path, std::to_string(new_min));
  } else {
    if (cur_min != new_min) io.write(min_path, std::to_string(new_min));
    if (cur_max != new_max) io.write(max_path, std::to_string(new_max));
  }
}

}  // namespace hpcsens::sweep
