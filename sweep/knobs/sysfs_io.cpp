#include "sweep/knobs/sysfs_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace hpcsens::sweep {

std::optional<std::string> RealSysfs::read(const std::string& path) const {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

void RealSysfs::write(const std::string& path, const std::string& value) {
  // One write(2) of the whole value: sysfs attributes take a value per write call. Never
  // created, never through a symlink. No O_TRUNC: sysfs ignores it, and on a fake tree (tests)
  // a sweep killed between truncate and write would leave an empty file; the ftruncate after
  // the write trims a longer old value there and is a no-op on sysfs.
  const int fd = ::open(path.c_str(), O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot open " + path + " for writing: " + std::strerror(errno));
  const std::string line = value + "\n";
  const ssize_t n = ::write(fd, line.data(), line.size());
  const int err = errno;
  if (n == ssize_t(line.size())) (void)!::ftruncate(fd, off_t(line.size()));
  ::close(fd);
  if (n != ssize_t(line.size()))
    throw std::runtime_error("cannot write '" + value + "' to " + path + ": " + std::strerror(err));
}

namespace {
SysfsIo* g_machine_sysfs = nullptr;
}  // namespace

SysfsIo& machine_sysfs() {
  static RealSysfs real;
  return g_machine_sysfs ? *g_machine_sysfs : real;
}

void set_machine_sysfs(SysfsIo* io) { g_machine_sysfs = io; }

std::optional<std::string> DryRunSysfs::read(const std::string& path) const {
  auto it = overlay_.find(path);
  if (it != overlay_.end()) return it->second;
  return machine_sysfs().read(path);
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
    auto v = io.read(p);
    if (!v) throw std::runtime_error("cannot read " + p);
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
