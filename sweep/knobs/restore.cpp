#include "sweep/knobs/restore.h"

#include <algorithm>
#include <cerrno>
#include <map>
#include <set>
#include <stdexcept>

namespace hpcsens::sweep {
namespace {

std::string dir_of(const std::string& p) { return p.substr(0, p.rfind('/')); }
std::string base_of(const std::string& p) { return p.substr(p.rfind('/') + 1); }
bool is_number(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

// A cpufreq policy whose CPUs are all offline answers EBUSY to every read: nothing in it can be
// written back until a CPU of it is online again.
bool policy_offline(const SysfsIo& io, const std::string& dir, const std::map<std::string, std::string>& files) {
  return !files.empty() && io.read_file(dir + "/" + files.begin()->first).error == EBUSY;
}

}  // namespace

std::vector<FileWrite> save_files(const SysfsIo& io, const std::vector<std::string>& paths) {
  std::vector<FileWrite> out;
  for (const auto& p : paths) {
    const SysfsRead r = io.read_file(p);
    if (!r.value) throw std::runtime_error(r.why + "; its value cannot be saved before the sweep changes it" +
                                           (r.error == EBUSY ? " (its CPUs went offline since the sweep looked)" : ""));
    // An empty value could never be written back: saying so now beats a restore that fails forever.
    if (r.value->empty()) throw std::runtime_error(p + " reads empty; there is no value to restore it to");
    out.push_back({p, *r.value});
  }
  return out;
}

std::vector<RestoreSkip> restore_skips(const std::vector<FileWrite>& saved) {
  std::map<std::string, std::string> governor_of;  // directory -> saved governor
  for (const auto& f : saved)
    if (base_of(f.path) == "scaling_governor") governor_of[dir_of(f.path)] = f.value;
  std::vector<RestoreSkip> out;
  for (const auto& f : saved) {
    const bool placeholder = !f.value.empty() && f.value.front() == '<';  // sysfs "<unsupported>"
    if (f.value.empty()) {
      out.push_back({f.path, "was saved empty (an older hpcsens read an offline policy's EBUSY as ''); "
                             "there is no value to write back"});
    } else if (base_of(f.path) == "scaling_setspeed") {
      const auto g = governor_of.find(dir_of(f.path));
      if (g != governor_of.end() && g->second == "userspace" && is_number(f.value)) continue;
      if (g != governor_of.end())
        out.push_back({f.path, "was " + f.value + " (governor " + g->second +
                                   "), restored by restoring the governor"});
      else
        out.push_back({f.path, "was " + f.value + " and no governor was saved with it; not writable"});
    } else if (placeholder) {
      out.push_back({f.path, "was " + f.value + ", not a writable value"});
    }
  }
  return out;
}

RestoreResult restore_files(SysfsIo& io, const std::vector<FileWrite>& saved) {
  RestoreResult r;
  r.skipped = restore_skips(saved);
  std::set<std::string> skip, failed;
  for (const auto& s : r.skipped) skip.insert(s.path);
  // Keep the first-seen order of directories so restores are reproducible.
  std::vector<std::string> dirs;
  std::map<std::string, std::map<std::string, std::string>> by_dir;
  for (const auto& f : saved) {
    if (skip.count(f.path)) continue;
    const auto d = dir_of(f.path);
    if (!by_dir.count(d)) dirs.push_back(d);
    by_dir[d][base_of(f.path)] = f.value;
  }
  auto put = [&](const std::string& path, const std::string& value) {
    try {
      if (io.read(path).value_or("") != value) io.write(path, value);
    } catch (const std::exception& e) {
      r.errors.push_back(e.what());
      failed.insert(path);
    }
  };
  for (const auto& d : dirs) {
    auto files = by_dir[d];
    if (policy_offline(io, d, files)) {
      for (const auto& [name, value] : files) {
        r.skipped.push_back({d + "/" + name, "its policy is offline (every CPU of it; the kernel answers EBUSY): "
                                             "not written; run --restore again once its CPUs are online"});
        skip.insert(d + "/" + name);
      }
      continue;
    }
    for (const auto& [lo, hi] : {std::pair{"scaling_min_freq", "scaling_max_freq"},
                                 std::pair{"min_freq_khz", "max_freq_khz"}}) {
      if (files.count(lo) && files.count(hi) && is_number(files[lo]) && is_number(files[hi])) {
        try {
          write_min_max(io, d + "/" + lo, d + "/" + hi, std::stol(files[lo]), std::stol(files[hi]));
        } catch (const std::exception& e) {
          r.errors.push_back(e.what());
          failed.insert(d + "/" + lo);
          failed.insert(d + "/" + hi);
        }
        files.erase(lo);
        files.erase(hi);
      }
    }
    // The governor before setspeed: setspeed is writable only under userspace.
    if (files.count("scaling_governor")) {
      put(d + "/scaling_governor", files["scaling_governor"]);
      files.erase("scaling_governor");
    }
    if (files.count("scaling_setspeed")) {
      put(d + "/scaling_setspeed", files["scaling_setspeed"]);
      files.erase("scaling_setspeed");
    }
    for (const auto& [name, value] : files) put(d + "/" + name, value);
  }
  for (const auto& f : saved)
    if (!skip.count(f.path) && !failed.count(f.path)) r.restored.push_back(f);
  return r;
}

std::string restore_summary(const RestoreResult& r) {
  std::string s = "restored " + std::to_string(r.restored.size()) + " knob files to their original values";
  if (!r.skipped.empty()) {
    s += "; " + std::to_string(r.skipped.size()) + " skipped:";
    // Grouped by file name and reason so 64 policies make one clause, not 64 (the journal
    // keeps every path).
    std::vector<std::pair<std::string, int>> groups;
    for (const auto& k : r.skipped) {
      const std::string key = base_of(k.path) + " " + k.reason;
      auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == key; });
      if (it == groups.end()) groups.push_back({key, 1});
      else ++it->second;
    }
    for (std::size_t i = 0; i < groups.size(); ++i)
      s += (i ? "; " : " ") + groups[i].first +
           (groups[i].second > 1 ? " (" + std::to_string(groups[i].second) + " files)" : "");
  }
  if (!r.errors.empty()) s += "; " + std::to_string(r.errors.size()) + " FAILED (below)";
  return s;
}

}  // namespace hpcsens::sweep
