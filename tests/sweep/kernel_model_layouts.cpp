// The trees the kernel model starts from: one per driver set-up clusters run today, as each
// driver shows itself after boot (attribute names from the kernel's cpufreq, intel_pstate,
// amd-pstate and intel_uncore_frequency documentation).
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "fake_sysfs.h"
#include "kernel_model.h"
#include "kernel_model_tree.h"

namespace fs = std::filesystem;

namespace hpcsens::sweep::testing {
namespace {

std::string khz(long k) { return std::to_string(k); }

std::string join(const std::vector<long>& v, bool descending) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? " " : "") + khz(descending ? v[v.size() - 1 - i] : v[i]);
  return s;
}

bool intel(const KernelLayout& l) { return l.driver == "intel_pstate" || l.driver == "intel_cpufreq"; }
bool setpolicy(const KernelLayout& l) { return l.driver == "intel_pstate" || l.driver == "amd-pstate-epp"; }

std::string governors(const KernelLayout& l) {
  return setpolicy(l) ? "performance powersave" : "conservative ondemand userspace powersave performance schedutil";
}

void build_globals(const std::string& cpu, const KernelLayout& l) {
  if (intel(l)) {
    put(cpu + "/intel_pstate/status", l.driver == "intel_pstate" ? "active" : "passive");
    put(cpu + "/intel_pstate/no_turbo", l.turbo_on ? "0" : "1");
    // show_turbo_pct/show_num_pstates of intel_pstate.c.
    const long total = (l.turbo_khz - l.min_khz) / 100000 + 1, no_turbo = (l.base_khz - l.min_khz) / 100000 + 1;
    put(cpu + "/intel_pstate/num_pstates", std::to_string(total));
    put(cpu + "/intel_pstate/turbo_pct", std::to_string(100 - no_turbo * 100 / total));
  } else {
    put(cpu + "/cpufreq/boost", l.turbo_on ? "1" : "0");
  }
  if (l.driver.rfind("amd-pstate", 0) == 0)
    put(cpu + "/amd_pstate/status", l.driver == "amd-pstate-epp" ? "active" : l.amd_mode);
}

void build_policy(const std::string& cpu, const KernelLayout& l, int first) {
  const std::string d = cpu + "/cpufreq/policy" + std::to_string(first);
  std::string cpus;
  for (int c = first; c < first + l.cpus_per_policy; ++c) cpus += (c > first ? " " : "") + std::to_string(c);
  put(d + "/affected_cpus", cpus);
  put(d + "/related_cpus", cpus);
  put(d + "/scaling_driver", l.driver);
  put(d + "/scaling_available_governors", governors(l));
  put(d + "/scaling_governor", setpolicy(l) ? "powersave" : l.driver == "acpi-cpufreq" ? "ondemand" : "schedutil");
  put(d + "/cpuinfo_min_freq", khz(l.min_khz));
  put(d + "/cpuinfo_max_freq", khz(l.turbo_khz));
  put(d + "/cpuinfo_transition_latency", "10000");
  for (const char* f : {"scaling_min_freq", "scaling_max_freq", "scaling_cur_freq", "scaling_setspeed"}) put(d + "/" + f, "0");
  if (l.driver == "acpi-cpufreq") {
    put(d + "/scaling_available_frequencies", join(l.table, true));
    put(d + "/scaling_boost_frequencies", khz(l.turbo_khz));
  }
  if (intel(l) && l.hwp) put(d + "/base_frequency", khz(l.base_khz));
  if (l.driver.rfind("amd-pstate", 0) == 0) {
    put(d + "/amd_pstate_max_freq", khz(l.turbo_khz));
    put(d + "/amd_pstate_lowest_nonlinear_freq", khz(l.min_khz + 400000));
  }
  if (setpolicy(l)) put(d + "/energy_performance_preference", "balance_performance");
  const std::string key = "policy" + std::to_string(first);
  put(cpu + "/../../../.model/" + key + ".min_req", khz(l.min_khz));
  put(cpu + "/../../../.model/" + key + ".max_req", khz(l.turbo_khz));
  put(cpu + "/../../../.model/" + key + ".setspeed", "");
}

void build_uncore(const std::string& cpu, const KernelLayout& l) {
  const std::string u = cpu + "/intel_uncore_frequency/";
  auto domain = [&](const std::string& name, long hi) {
    put(u + name + "/initial_min_freq_khz", "800000");
    put(u + name + "/initial_max_freq_khz", khz(hi));
    put(u + name + "/min_freq_khz", "800000");
    put(u + name + "/max_freq_khz", khz(hi));
  };
  domain("package_00_die_00", 2500000);
  if (l.uncore == "legacy") {
    domain("package_01_die_00", 2500000);
    return;
  }
  // TPMI: one compute die and two I/O dies (PCIe/UPI) of package 0, the package-level
  // directory kept for compatibility.
  const char* agents[] = {"core cache memory", "io", "io"};
  for (int i = 0; i < 3; ++i) {
    const std::string name = "uncore0" + std::to_string(i);
    domain(name, i == 0 ? 2500000 : 2000000);
    put(u + name + "/package_id", "0");
    put(u + name + "/domain_id", std::to_string(i));
    put(u + name + "/fabric_cluster_id", "0");
    put(u + name + "/agent_types", agents[i]);
  }
}

KernelLayout named(const std::string& name, const std::string& driver, const std::string& amd_mode = "") {
  KernelLayout l;
  l.name = name, l.driver = driver, l.amd_mode = amd_mode;
  return l;
}

}  // namespace

std::vector<KernelLayout> all_layouts() {
  const std::vector<long> table = {1200000, 1600000, 2000000, 2200000, 2400000};
  KernelLayout acpi = named("acpi_cpufreq", "acpi-cpufreq");
  acpi.min_khz = 1200000, acpi.turbo_khz = 2800000, acpi.table = table;
  KernelLayout shared = acpi;
  shared.name = "acpi_cpufreq_shared_policies", shared.cpus_per_policy = 2;
  KernelLayout offline = acpi;
  offline.name = "acpi_cpufreq_offline_cpu", offline.policies = 3, offline.offline_cpus = {1};
  KernelLayout hwp = named("intel_pstate_hwp", "intel_pstate");
  hwp.hwp = true, hwp.uncore = "legacy";
  KernelLayout no_turbo = hwp;
  no_turbo.name = "intel_pstate_hwp_no_turbo_tpmi", no_turbo.turbo_on = false, no_turbo.uncore = "tpmi";
  KernelLayout no_hwp = named("intel_pstate_no_hwp", "intel_pstate");
  KernelLayout passive_hwp = named("intel_cpufreq_passive_hwp", "intel_cpufreq");
  passive_hwp.hwp = true;
  KernelLayout passive = named("intel_cpufreq_passive_no_hwp", "intel_cpufreq");
  KernelLayout epp = named("amd_pstate_active", "amd-pstate-epp");
  KernelLayout guided = named("amd_pstate_guided", "amd-pstate", "guided");
  KernelLayout amd_passive = named("amd_pstate_passive", "amd-pstate", "passive");
  KernelLayout cppc = named("cppc_cpufreq", "cppc_cpufreq");
  for (auto* l : {&epp, &guided, &amd_passive, &cppc}) l->min_khz = 400000, l->base_khz = 2400000, l->turbo_khz = 3700000;
  return {acpi, shared, offline, hwp, no_turbo, no_hwp, passive_hwp, passive, epp, guided, amd_passive, cppc};
}

void build_layout(const std::string& root, const KernelLayout& l) {
  const std::string cpu = root + "/devices/system/cpu";
  std::string inactive, online, offline;
  const std::set<int> off(l.offline_cpus.begin(), l.offline_cpus.end());
  for (int p = 0; p < l.policies; ++p) {
    const int first = p * l.cpus_per_policy;
    build_policy(cpu, l, first);
    bool all_off = true;
    for (int c = first; c < first + l.cpus_per_policy; ++c) {
      put(cpu + "/cpu" + std::to_string(c) + "/online", off.count(c) ? "0" : "1");
      (off.count(c) ? offline : online) += (off.count(c) ? (offline.empty() ? "" : ",") : (online.empty() ? "" : ",")) + std::to_string(c);
      if (l.driver.rfind("amd-pstate", 0) == 0 || l.driver == "cppc_cpufreq")
        put(cpu + "/cpu" + std::to_string(c) + "/acpi_cppc/nominal_freq", std::to_string(l.base_khz / 1000));
      all_off = all_off && off.count(c);
    }
    if (all_off) inactive += " policy" + std::to_string(first);
  }
  put(cpu + "/online", online);
  put(cpu + "/offline", offline);
  build_globals(cpu, l);
  if (!l.uncore.empty()) build_uncore(cpu, l);
  put(root + "/.model/config", "driver=" + l.driver + "\namd_mode=" + l.amd_mode + "\nhwp=" + (l.hwp ? "1" : "0") +
                                        "\nmin=" + khz(l.min_khz) + "\nbase=" + khz(l.base_khz) + "\nturbo=" +
                                        khz(l.turbo_khz) + "\ntable=" + join(l.table, false) + "\nboost_table=" +
                                        (l.driver == "acpi-cpufreq" ? khz(l.turbo_khz) : "") + "\ninactive=" +
                                        inactive + "\nuncore=" + l.uncore);
  ModelTree(root).refresh();
  // An inactive policy keeps what it showed when its last CPU went away.
  for (int c : l.offline_cpus)
    if (inactive.find("policy" + std::to_string(c)) != std::string::npos) {
      const std::string d = cpu + "/cpufreq/policy" + std::to_string(c);
      put(d + "/scaling_min_freq", khz(l.min_khz));
      put(d + "/scaling_max_freq", khz(l.turbo_khz));
    }
}

}  // namespace hpcsens::sweep::testing
