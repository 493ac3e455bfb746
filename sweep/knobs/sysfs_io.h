#pragma once
// File access for the sysfs knob backends. Every backend works below a root directory (default
// /sys) so tests use a fake tree; the dry-run uses an overlay that records writes and never
// touches a file.
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hpcsens::sweep {

struct FileWrite {
  std::string path;
  std::string value;
};

class SysfsIo {
 public:
  virtual ~SysfsIo() = default;
  // Contents with the trailing newline removed; nullopt when the file cannot be read.
  virtual std::optional<std::string> read(const std::string& path) const = 0;
  // Throws std::runtime_error naming the file and errno text on failure.
  virtual void write(const std::string& path, const std::string& value) = 0;
};

class RealSysfs : public SysfsIo {
 public:
  std::optional<std::string> read(const std::string& path) const override;
  void write(const std::string& path, const std::string& value) override;
};

// Reads through to the real files, keeps writes in memory and lists them in order.
class DryRunSysfs : public SysfsIo {
 public:
  std::optional<std::string> read(const std::string& path) const override;
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
