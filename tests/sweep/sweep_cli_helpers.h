#pragma once
// What the sweep CLI tests share: the binaries, the journal as JSON, a fake knob tree and its
// original values, the processes below a pid.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "sweep_process.h"

namespace hpcsens::sweep::testing {

inline const std::string kHpcsens = HPCSENS_EXE;
inline const std::string kStream = HPCSENS_STREAM_EXE;

inline std::vector<nlohmann::json> journal(const std::string& dir) {
  std::vector<nlohmann::json> out;
  std::ifstream in(dir + "/journal.jsonl");
  std::string line;
  while (std::getline(in, line)) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_discarded()) out.push_back(j);
  }
  return out;
}

inline int count_type(const std::vector<nlohmann::json>& j, const std::string& type, const std::string& status = "") {
  int n = 0;
  for (const auto& e : j)
    if (e.value("type", "") == type && (status.empty() || e.value("status", "") == status)) ++n;
  return n;
}

// Pids of processes below `root` whose command name is `comm`.
inline std::vector<pid_t> descendants_named(pid_t root, const std::string& comm) {
  std::multimap<pid_t, pid_t> kids;
  std::map<pid_t, std::string> names;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    const auto n = e.path().filename().string();
    if (n.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(e.path() / "stat");
    std::string stat;
    std::getline(in, stat);
    const auto l = stat.find('('), r = stat.rfind(')');
    if (l == std::string::npos || r == std::string::npos) continue;
    std::istringstream rest(stat.substr(r + 2));
    char state;
    pid_t ppid;
    rest >> state >> ppid;
    kids.emplace(ppid, std::stoi(n));
    names[std::stoi(n)] = stat.substr(l + 1, r - l - 1);
  }
  std::vector<pid_t> out, todo{root};
  while (!todo.empty()) {
    const pid_t p = todo.back();
    todo.pop_back();
    auto [b, e] = kids.equal_range(p);
    for (auto it = b; it != e; ++it) {
      if (names[it->second] == comm) out.push_back(it->second);
      todo.push_back(it->second);
    }
  }
  return out;
}

inline std::string mpi_job(int np) {
  return "[mpirun, -np, '" + std::to_string(np) + "', --oversubscribe, '" + kStream +
         "', --array-bytes, '4000000', --ntimes, '3']";
}

inline const std::string kPolicy = "/devices/system/cpu/cpufreq/policy0/";

inline std::string knob_spec(const std::string& root, const std::string& command, const std::string& extra = "") {
  return "job:\n  command: " + command + "\n  timeout_s: 60\nknobs:\n  cpu_ghz: [1.0, 2.0]\n  uncore_ghz: [1.5]\n"
         "backends: {sysfs_root: '" + root + "'}\ncalibration: {stream: false, clock: false}\nretries: 0\n" + extra;
}

inline void make_tree(const std::string& root) {
  testing::make_intel_pstate(root, 2);
  testing::make_uncore(root, 1);
}

inline void expect_original_tree(const std::string& root) {
  for (int p = 0; p < 2; ++p) {
    EXPECT_EQ(get(testing::policy_dir(root, p) + "/scaling_min_freq"), "800000");
    EXPECT_EQ(get(testing::policy_dir(root, p) + "/scaling_max_freq"), "3500000");
  }
  EXPECT_EQ(get(testing::uncore_dir(root, 0) + "/min_freq_khz"), "800000");
  EXPECT_EQ(get(testing::uncore_dir(root, 0) + "/max_freq_khz"), "2500000");
}

}  // namespace hpcsens::sweep::testing

namespace hpcsens::sweep::testing {

// Processes carrying the token of the sweep journalled in `dir`.
inline std::vector<int> processes_of_token(const std::string& dir) {
  const auto j = journal(dir);
  if (j.empty() || !j[0].contains("token")) return {};
  const std::string want = "HPCSENS_SWEEP_TOKEN=" + j[0]["token"].get<std::string>();
  std::vector<int> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc", ec)) {
    const auto n = e.path().filename().string();
    if (n.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(e.path() / "environ", std::ios::binary);
    std::string var;
    while (std::getline(in, var, '\0'))
      if (var == want) out.push_back(std::stoi(n));
  }
  return out;
}

}  // namespace hpcsens::sweep::testing
