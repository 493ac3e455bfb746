#include "sweep/restore.h"

#include <map>
#include <stdexcept>

namespace hpcsens::sweep {
namespace {

std::string dir_of(const std::string& p) { return p.substr(0, p.rfind('/')); }
std::string base_of(const std::string& p) { return p.substr(p.rfind('/') + 1); }
bool is_number(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

}  // namespace

std::vector<FileWrite> save_files(const SysfsIo& io, const std::vector<std::string>& paths) {
  std::vector<FileWrite> out;
  for (const auto& p : paths) {
    auto v = io.read(p);
    if (!v) throw std::runtime_error("cannot read " + p + " to save its value before the sweep changes it");
    out.push_back({p, *v});
  }
  return out;
}

std::vector<std::string> restore_files(SysfsIo& io, const std::vector<FileWrite>& saved) {
  std::vector<std::string> errors;
  // Keep the first-seen order of directories so restores are reproducible.
  std::vector<std::string> dirs;
  std::map<std::string, std::map<std::string, std::string>> by_dir;
  for (const auto& f : saved) {
    const auto d = dir_of(f.path);
    if (!by_dir.count(d)) dirs.push_back(d);
    by_dir[d][base_of(f.path)] = f.value;
  }
  auto put = [&](const std::string& path, const std::string& value) {
    try {
      if (io.read(path).value_or("") != value) io.write(path, value);
    } catch (const std::exception& e) {
      errors.push_back(e.what());
    }
  };
  for (const auto& d : dirs) {
    auto files = by_dir[d];
    for (const auto& [lo, hi] : {std::pair{"scaling_min_freq", "scaling_max_freq"},
                                 std::pair{"min_freq_khz", "max_freq_khz"}}) {
      if (files.count(lo) && files.count(hi) && is_number(files[lo]) && is_number(files[hi])) {
        try {
          write_min_max(io, d + "/" + lo, d + "/" + hi, std::stol(files[lo]), std::stol(files[hi]));
        } catch (const std::exception& e) {
          errors.push_back(e.what());
        }
        files.erase(lo);
        files.erase(hi);
      }
    }
    std::string governor;
    if (files.count("scaling_governor")) {
      governor = files["scaling_governor"];
      put(d + "/scaling_governor", governor);
      files.erase("scaling_governor");
    }
    if (files.count("scaling_setspeed")) {
      // Under any governor but userspace the file reads "<unsupported>" and cannot be written.
      if (governor == "userspace" && is_number(files["scaling_setspeed"]))
        put(d + "/scaling_setspeed", files["scaling_setspeed"]);
      files.erase("scaling_setspeed");
    }
    for (const auto& [name, value] : files) put(d + "/" + name, value);
  }
  return errors;
}

}  // namespace hpcsens::sweep
