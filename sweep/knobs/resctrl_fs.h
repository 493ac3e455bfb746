#pragma once
// The resctrl filesystem operations the sweep makes (Documentation/filesystems/resctrl.rst):
// mkdir of a group, writes of its schemata and tasks, rmdir. Reads go through SysfsIo. Like
// machine_sysfs(), a test binary installs a double (tests/sweep/resctrl_model.h) that enforces
// the kernel's rules, before the CLI runs.
#include <stdexcept>
#include <string>

namespace hpcsens::sweep {

// A refused resctrl operation: `err` is the errno the kernel gave.
class ResctrlError : public std::runtime_error {
 public:
  ResctrlError(const std::string& what, int err) : std::runtime_error(what), err(err) {}
  int err;
};

class ResctrlFs {
 public:
  virtual ~ResctrlFs() = default;
  // One write(2) of value + "\n"; never creates, never follows a symlink. Throws ResctrlError.
  virtual void write(const std::string& path, const std::string& value) = 0;
  // mkdir/rmdir of root/name (name: one path component). Throw ResctrlError.
  virtual void make_group(const std::string& root, const std::string& name) = 0;
  virtual void remove_group(const std::string& root, const std::string& name) = 0;
  // The mount table (the /proc/mounts format) whose options say how `root` is mounted
  // (mba_MBps: the MB: unit is MiB/s). A double names its own fake table.
  virtual std::string mounts_file(const std::string& root) const {
    (void)root;
    return "/proc/self/mounts";
  }
};

class RealResctrlFs : public ResctrlFs {
 public:
  void write(const std::string& path, const std::string& value) override;
  void make_group(const std::string& root, const std::string& name) override;
  void remove_group(const std::string& root, const std::string& name) override;
};

ResctrlFs& machine_resctrl();
void set_machine_resctrl(ResctrlFs* fs);  // nullptr: back to the real filesystem

// The kernel doc's advisory lock ("Lock a directory before ... read/write the directory
// structure"): flock(LOCK_EX) on the resctrl root, held for the life of the object. Waits up to
// `wait_s`, then throws ResctrlError naming the root (another tool is changing resctrl).
class ResctrlLock {
 public:
  ResctrlLock(const std::string& root, double wait_s);
  ~ResctrlLock();
  ResctrlLock(const ResctrlLock&) = delete;
  ResctrlLock& operator=(const ResctrlLock&) = delete;

 private:
  int fd_ = -1;
};

// The group every child started for the job joins (calibrator and run module, forked by the
// sweep): the tasks file of the point's group, "" for none. Set by the machine when it enters
// a point with a group, cleared when the group goes.
void set_job_tasks_file(const std::string& tasks_path);
const std::string& job_tasks_file();

// Called in a forked child before it starts the launcher: writes the child's own pid to the
// job's tasks file, so the launcher and every rank it forks inherit the group. "" when done or
// when there is no group; else what failed.
std::string join_job_group();

}  // namespace hpcsens::sweep
