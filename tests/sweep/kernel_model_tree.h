#pragma once
// One modelled tree as the kernel model sees it during one call: files relative to the root,
// the layout's constants (.model/config) and the driver's hidden state (.model/<policy>.*).
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hpcsens::sweep::testing {

class ModelTree {
 public:
  // The tree `path` lies in (the part before /devices/system/cpu/), when it has a .model/.
  static std::optional<ModelTree> of(const std::string& path);
  explicit ModelTree(std::string root);

  std::string rel(const std::string& abs) const { return abs.substr(root_.size() + 1); }
  std::string get(const std::string& rel) const;  // "" when missing
  void set(const std::string& rel, const std::string& value) const;
  std::string cfg(const std::string& key) const;
  long cfg_khz(const std::string& key) const;
  void set_hidden(const std::string& key, const std::string& value) const;
  std::string hidden(const std::string& key) const;

  static std::string policy_key(const std::string& policy_rel);  // "policy3"
  long request(const std::string& policy_rel, bool max) const;   // the QoS request
  // A request clamped to cpuinfo_min..max and resolved to the table (acpi-cpufreq: max down,
  // min up) or to 100 MHz P-states (intel).
  long resolve(long khz, bool is_max) const;
  long ceiling() const;                 // the highest clock turbo/boost allows now
  long visible_max(long max_req) const;  // what scaling_max_freq shows for that request
  // The clock a busy CPU of the policy runs at.
  long effective(const std::string& policy_rel) const;
  bool inactive_policy_of(const std::string& abs) const;
  std::vector<std::string> uncore_dirs(const std::string& prefix) const;
  // Recomputes what the kernel shows after a change: limits, scaling_cur_freq, setspeed.
  void refresh() const;

 private:
  std::string root_;
  std::map<std::string, std::string> cfg_;
  std::vector<long> table() const;
};

}  // namespace hpcsens::sweep::testing
