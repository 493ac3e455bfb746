#include "sweep/knobs/resctrl_fs.h"

#include "sweep/knobs/knob_root.h"
#include "sweep/knobs/sysfs_io.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

namespace hpcsens::sweep {
namespace {

ResctrlFs* g_resctrl = nullptr;
std::string g_job_tasks;

[[noreturn]] void resctrl_fail(const std::string& what, int err) {
  throw ResctrlError(what + ": " + std::strerror(err), err);
}

// The root as a directory descriptor: the group is made relative to it, never through a
// symlink planted at the root's place.
int open_root(const std::string& root) {
  const int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) resctrl_fail("cannot open resctrl root " + root, errno);
  return fd;
}

void check_name(const std::string& name) {
  if (name.empty() || name[0] == '.' || name.find('/') != std::string::npos)
    throw ResctrlError("'" + name + "' is not a resctrl group name", EINVAL);
}

}  // namespace

void RealResctrlFs::write(const std::string& path, const std::string& value) {
  // The same walk as every knob write (knob_root.h): no symlink outside the kernel's own
  // root-owned tree, no directory another user controls, no FIFO on the way.
  std::string why;
  const int fd = open_knob_file(path, O_WRONLY, &why);
  if (fd < 0) {
    const int err = errno;
    throw ResctrlError("cannot open " + path + " for writing: " + why, err);
  }
  const std::string line = value + "\n";
  const ssize_t n = sysfs_calls().write(fd, line.data(), line.size());
  const int err = errno;
  sysfs_calls().close(fd);
  if (n != ssize_t(line.size())) resctrl_fail("cannot write '" + value + "' to " + path, n < 0 ? err : EIO);
}

void RealResctrlFs::make_group(const std::string& root, const std::string& name) {
  check_name(name);
  const int fd = open_root(root);
  const int rc = ::mkdirat(fd, name.c_str(), 0755);
  const int err = errno;
  ::close(fd);
  if (rc != 0) resctrl_fail("cannot create resctrl group " + root + "/" + name, err);
}

void RealResctrlFs::remove_group(const std::string& root, const std::string& name) {
  check_name(name);
  const int fd = open_root(root);
  const int rc = ::unlinkat(fd, name.c_str(), AT_REMOVEDIR);
  const int err = errno;
  ::close(fd);
  if (rc != 0) resctrl_fail("cannot remove resctrl group " + root + "/" + name, err);
}

ResctrlFs& machine_resctrl() {
  static RealResctrlFs real;
  return g_resctrl ? *g_resctrl : real;
}

void set_machine_resctrl(ResctrlFs* fs) { g_resctrl = fs; }

ResctrlLock::ResctrlLock(const std::string& root, double wait_s) : fd_(open_root(root)) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(wait_s);
  while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    if ((err != EWOULDBLOCK && err != EINTR) || std::chrono::steady_clock::now() > end) {
      ::close(fd_);
      fd_ = -1;
      throw ResctrlError("another program holds the resctrl lock (flock on " + root + ") for more than " +
                             std::to_string(int(wait_s)) + " s; find it with: lsof " + root,
                         err);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

ResctrlLock::~ResctrlLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor drops the flock
}

void set_job_tasks_file(const std::string& tasks_path) { g_job_tasks = tasks_path; }
const std::string& job_tasks_file() { return g_job_tasks; }

std::string join_job_group() {
  if (g_job_tasks.empty()) return "";
  try {
    machine_resctrl().write(g_job_tasks, std::to_string(::getpid()));
  } catch (const std::exception& e) {
    return std::string("cannot put the job into its resctrl group: ") + e.what();
  }
  return "";
}

}  // namespace hpcsens::sweep
