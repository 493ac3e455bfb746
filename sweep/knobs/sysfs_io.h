#pragma once
// File access for the sysfs knob backends. Every backend works below a root directory (default
// /sys) so tests use a fake tree; the dry-run uses an overlay that records writes and never
// touches a file. Every file is opened by knob_root.h's walk (no symlink followed outside the
// kernel's own trees, every directory held to the owner rules).
#include <sys/types.h>

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hpcsens::sweep {

struct FileWrite {
  std::string path;
  std::string value;
};

// The system calls the real reader and writer make. The default makes them; a test double of the
// kernel (tests/sweep/kernel_model.h) replaces them as a whole, so the real reader and writer
// run in tests against the kernel's rules (a read that fails with EBUSY, a write refused,
// clamped or rounded), not a stand-in for them.
class SysfsCalls {
 public:
  virtual ~SysfsCalls() = default;
  virtual int openat(int dirfd, const char* name, int flags);
  virtual ssize_t read(int fd, void* buf, std::size_t n);
  virtual ssize_t write(int fd, const void* buf, std::size_t n);
  virtual int ftruncate(int fd, off_t size);
  virtual int close(int fd);
};
SysfsCalls& sysfs_calls();
void set_sysfs_calls(SysfsCalls* calls);  // nullptr: back to the real system calls

// What a read gave: the contents (trailing newline and blanks removed), or the errno of the
// open or read(2) that failed and one line saying so. A kernel attribute that opens but cannot
// be read (EBUSY: the policy of an offline CPU) is an error, never an empty value.
struct SysfsRead {
  std::optional<std::string> value;
  int error = 0;
  std::string why;
};

class SysfsIo {
 public:
  virtual ~SysfsIo() = default;
  virtual SysfsRead read_file(const std::string& path) const = 0;
  // The contents, or nullopt when the file cannot be read (read_file says why).
  std::optional<std::string> read(const std::string& path) const { return read_file(path).value; }
  // Throws std::runtime_error naming the file and errno text on failure.
  virtual void write(const std::string& path, const std::string& value) = 0;
};

class RealSysfs : public SysfsIo {
 public:
  SysfsRead read_file(const std::string& path) const override;
  void write(const std::string& path, const std::string& value) override;
};

// Reads through to the real files, keeps writes in memory and lists them in order.
class DryRunSysfs : public SysfsIo {
 public:
  SysfsRead read_file(const std::string& path) const override;
  void write(const std::string& path, const std::string& value) override;
  std::vector<FileWrite> take_writes();

 private:
  std::map<std::string, std::string> overlay_;
  std::vector<FileWrite> writes_;
};

// The SysfsIo every machine-side step of the sweep reads and writes through: a RealSysfs unless
// a test binary installed its double (the kernel model in tests/sweep/) before the CLI runs.
// Reads matter as much as writes: a real kernel refuses some reads too (EBUSY on the policy of
// an offline CPU), which plain files cannot show.
SysfsIo& machine_sysfs();
void set_machine_sysfs(SysfsIo* io);  // nullptr: back to the real files

// Subdirectories of `dir` whose names start with `prefix`, sorted; empty when `dir` is missing.
std::vector<std::string> list_subdirs(const std::string& dir, const std::string& prefix);

// The order in which to write a (min, max) pair so that min <= max holds after every write:
// drivers reject (old cpufreq: EINVAL) or silently clamp (intel_pstate) a step that crosses.
// Moving the window up: max first; moving it down: min first. Returns true for "max first".
bool write_max_first(long current_min, long current_max, long new_min, long new_max);

// Writes min_path/max_path in that safe order, reading the current values through `io`.
void write_min_max(SysfsIo& io, const std::string& min_path, const std::string& max_path,
                   long new_min, long new_max);

}  // namespace hpcsens::sweep
