#include "kernel_model_tree.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "fake_sysfs.h"
#include "sweep/knobs/sysfs_io.h"

namespace fs = std::filesystem;

namespace hpcsens::sweep::testing {
namespace {

const char* kCpu = "/devices/system/cpu/";

bool setpolicy_driver(const std::string& d) { return d == "intel_pstate" || d == "amd-pstate-epp"; }

}  // namespace

std::optional<ModelTree> ModelTree::of(const std::string& path) {
  const auto k = path.find(kCpu);
  if (k == std::string::npos) return std::nullopt;
  const std::string root = path.substr(0, k);
  std::error_code ec;
  if (!fs::is_regular_file(root + "/.model/config", ec)) return std::nullopt;
  return ModelTree(root);
}

ModelTree::ModelTree(std::string root) : root_(std::move(root)) {
  std::istringstream in(testing::get(root_ + "/.model/config"));
  for (std::string line; std::getline(in, line);)
    if (auto eq = line.find('='); eq != std::string::npos) cfg_[line.substr(0, eq)] = line.substr(eq + 1);
}

std::string ModelTree::get(const std::string& rel) const { return testing::get(root_ + "/" + rel); }
void ModelTree::set(const std::string& rel, const std::string& value) const { put(root_ + "/" + rel, value); }
std::string ModelTree::cfg(const std::string& key) const {
  auto it = cfg_.find(key);
  return it == cfg_.end() ? "" : it->second;
}
long ModelTree::cfg_khz(const std::string& key) const { return std::stol(cfg(key)); }
void ModelTree::set_hidden(const std::string& key, const std::string& value) const {
  put(root_ + "/.model/" + key, value);
}
std::string ModelTree::hidden(const std::string& key) const { return testing::get(root_ + "/.model/" + key); }

std::string ModelTree::policy_key(const std::string& policy_rel) {
  return policy_rel.substr(policy_rel.rfind('/') + 1);
}

long ModelTree::request(const std::string& policy_rel, bool max) const {
  return std::stol(hidden(policy_key(policy_rel) + (max ? ".max_req" : ".min_req")));
}

std::vector<long> ModelTree::table() const {
  std::vector<long> t;
  std::istringstream in(cfg("table") + " " + cfg("boost_table"));
  for (long k; in >> k;) t.push_back(k);
  std::sort(t.begin(), t.end());
  return t;
}

long ModelTree::resolve(long khz, bool is_max) const {
  khz = std::clamp(khz, cfg_khz("min"), cfg_khz("turbo"));
  const std::string d = cfg("driver");
  if (d == "intel_pstate" || d == "intel_cpufreq") return is_max ? khz / 100000 * 100000 : (khz + 99999) / 100000 * 100000;
  if (d != "acpi-cpufreq") return khz;
  const auto t = table();
  if (is_max) {  // CPUFREQ_RELATION_H: the highest entry at or below
    long best = t.front();
    for (long k : t)
      if (k <= khz) best = k;
    return best;
  }
  for (long k : t)  // CPUFREQ_RELATION_L: the lowest entry at or above
    if (k >= khz) return k;
  return t.back();
}

long ModelTree::ceiling() const {
  const std::string d = cfg("driver");
  const bool turbo = (d == "intel_pstate" || d == "intel_cpufreq") ? get("devices/system/cpu/intel_pstate/no_turbo") == "0"
                                                                    : get("devices/system/cpu/cpufreq/boost") == "1";
  return turbo ? cfg_khz("turbo") : cfg_khz("base");
}

long ModelTree::visible_max(long max_req) const { return std::min(resolve(max_req, true), ceiling()); }

long ModelTree::effective(const std::string& pol) const {
  const long vmax = visible_max(request(pol, true));
  const long vmin = std::min(resolve(request(pol, false), false), vmax);
  const std::string d = cfg("driver"), gov = get(pol + "/scaling_governor");
  if (gov == "userspace") {
    const long target = std::clamp(std::stol(hidden(policy_key(pol) + ".setspeed")), vmin, vmax);
    // Only a floor: the hardware picks within [target, max] and a busy CPU runs at the max.
    if ((d == "intel_cpufreq" && cfg("hwp") == "1") || cfg("amd_mode") == "guided") return vmax;
    if (d == "acpi-cpufreq") return std::min(resolve(target, false), vmax);
    if (d == "intel_cpufreq") return resolve(target, false);
    return target;
  }
  if (gov == "powersave" && !setpolicy_driver(d)) return vmin;
  return vmax;  // performance, the pstate drivers' powersave and the dynamic governors, busy
}

bool ModelTree::inactive_policy_of(const std::string& abs) const {
  std::istringstream in(cfg("inactive"));
  for (std::string p; in >> p;) {
    const std::string dir = root_ + kCpu + "cpufreq/" + p;
    if (abs == dir || abs.rfind(dir + "/", 0) == 0) return true;
  }
  return false;
}

std::vector<std::string> ModelTree::uncore_dirs(const std::string& prefix) const {
  std::vector<std::string> out;
  for (const auto& d : list_subdirs(root_ + kCpu + "intel_uncore_frequency", prefix)) out.push_back(rel(d));
  return out;
}

void ModelTree::refresh() const {
  for (const auto& abs : list_subdirs(root_ + kCpu + "cpufreq", "policy")) {
    if (inactive_policy_of(abs)) continue;
    const std::string pol = rel(abs);
    const long vmax = visible_max(request(pol, true));
    set(pol + "/scaling_max_freq", std::to_string(vmax));
    set(pol + "/scaling_min_freq", std::to_string(std::min(resolve(request(pol, false), false), vmax)));
    const long cur = effective(pol);
    set(pol + "/scaling_cur_freq", std::to_string(cur));
    // The userspace governor shows policy->cur; every other governor "<unsupported>".
    set(pol + "/scaling_setspeed", get(pol + "/scaling_governor") == "userspace" ? std::to_string(cur) : "<unsupported>");
  }
  for (const auto& d : uncore_dirs("")) {
    // current_freq_khz: every legacy package/die, only the fabric clusters with TPMI.
    const bool cluster = d.substr(d.rfind('/') + 1).rfind("uncore", 0) == 0;
    if (!cluster && cfg("uncore") != "legacy") continue;
    const long hi = std::stol(get(d + "/initial_max_freq_khz")), lo = std::stol(get(d + "/initial_min_freq_khz"));
    set(d + "/current_freq_khz", std::to_string(std::clamp(std::stol(get(d + "/max_freq_khz")), lo, hi)));
  }
}

}  // namespace hpcsens::sweep::testing
