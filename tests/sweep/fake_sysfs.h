#pragma once
// Test double: a fake sysfs tree in a temporary directory (the backends take a root directory),
// plus an I/O wrapper that records every write in order.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sweep/knobs/sysfs_io.h"

namespace hpcsens::sweep::testing {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "hpcsens-sweep-XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

inline void put(const std::string& path, const std::string& value) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << value << "\n";
}

inline std::string get(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

inline std::string policy_dir(const std::string& root, int n) {
  return root + "/devices/system/cpu/cpufreq/policy" + std::to_string(n);
}

// acpi-cpufreq style: userspace governor available, listed frequencies.
inline void make_acpi_cpufreq(const std::string& root, int policies) {
  for (int p = 0; p < policies; ++p) {
    const auto d = policy_dir(root, p);
    put(d + "/scaling_driver", "acpi-cpufreq");
    put(d + "/scaling_available_governors", "conservative ondemand userspace powersave performance schedutil");
    put(d + "/scaling_governor", "ondemand");
    put(d + "/scaling_setspeed", "<unsupported>");
    put(d + "/scaling_available_frequencies", "2400000 2000000 1600000 1200000");
    put(d + "/cpuinfo_min_freq", "1200000");
    put(d + "/cpuinfo_max_freq", "2400000");
    put(d + "/scaling_min_freq", "1200000");
    put(d + "/scaling_max_freq", "2400000");
  }
}

// intel_pstate active mode: no userspace governor, no frequency list.
inline void make_intel_pstate(const std::string& root, int policies) {
  for (int p = 0; p < policies; ++p) {
    const auto d = policy_dir(root, p);
    put(d + "/scaling_driver", "intel_pstate");
    put(d + "/scaling_available_governors", "performance powersave");
    put(d + "/scaling_governor", "powersave");
    put(d + "/cpuinfo_min_freq", "800000");
    put(d + "/cpuinfo_max_freq", "3500000");
    put(d + "/scaling_min_freq", "800000");
    put(d + "/scaling_max_freq", "3500000");
  }
}

inline std::string uncore_dir(const std::string& root, int pkg) {
  return root + "/devices/system/cpu/intel_uncore_frequency/package_0" + std::to_string(pkg) + "_die_00";
}

inline void make_uncore(const std::string& root, int packages) {
  for (int p = 0; p < packages; ++p) {
    const auto d = uncore_dir(root, p);
    put(d + "/initial_min_freq_khz", "800000");
    put(d + "/initial_max_freq_khz", "2500000");
    put(d + "/min_freq_khz", "800000");
    put(d + "/max_freq_khz", "2500000");
  }
}

// Real files underneath, every write also logged.
class RecordingSysfs : public RealSysfs {
 public:
  void write(const std::string& path, const std::string& value) override {
    writes.push_back({path, value});
    RealSysfs::write(path, value);
  }
  std::vector<FileWrite> writes;
};

}  // namespace hpcsens::sweep::testing
