#pragma once
// The namespace cluster (ns_cluster.sh) as seen from a test: ctest brings it up once for all
// cluster tests (fixture ns_cluster, HPCSENS_CLUSTER_DIR set); a test binary run by hand starts
// its own. Commands run "on" a host through `ns_cluster.sh exec`, with output in files (daemons
// and killed jobs' children may keep a pipe open).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sweep_process.h"

namespace hpcsens::cluster {

using sweep::testing::get;
using sweep::testing::put;
using sweep::testing::Result;

inline const std::string kScript = HPCSENS_SOURCE_DIR "/tests/cluster/ns_cluster.sh";

// The JSON lines of a finished file (a journal): a line that does not parse fails the test.
inline std::vector<nlohmann::json> json_lines(const std::string& path) {
  std::vector<nlohmann::json> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(nlohmann::json::parse(line));
  return out;
}

class Cluster : public ::testing::Environment {
 public:
  void SetUp() override {
    if (const char* d = std::getenv("HPCSENS_CLUSTER_DIR"); d && *d) {
      dir_ = d;
      return;
    }
    dir_ = std::filesystem::temp_directory_path() / ("hpcsens-cluster-" + std::to_string(::getpid()));
    own_ = true;
    const auto r = sweep::testing::run({"/bin/bash", kScript, "start", dir_, "2"}, "/tmp", 60);
    ASSERT_EQ(r.status, 0) << "the namespace cluster did not come up:\n" << r.out << r.err;
  }
  void TearDown() override {
    if (own_) sweep::testing::run({"/bin/bash", kScript, "stop", dir_}, "/tmp", 60);
  }
  static const std::string& dir() { return dir_; }

 private:
  static inline std::string dir_;
  bool own_ = false;
};

// Runs `args` on `host` (node0 is where users log in) in `cwd`.
inline Result on_host(const std::string& host, std::vector<std::string> args, const std::string& cwd,
                      double timeout_s = 60) {
  args.insert(args.begin(), {"/bin/bash", kScript, "exec", Cluster::dir(), host});
  return sweep::testing::run(args, cwd, timeout_s);
}

// The pid of the `hpcsens sweep` (found by `exe`, its binary) whose command line names `spec`,
// or -1.
inline pid_t sweep_controller_pid(const std::string& exe, const std::string& spec) {
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    const std::string cmd = get(e.path().string() + "/cmdline");
    if (cmd.rfind(exe + '\0' + "sweep", 0) == 0 && cmd.find(spec) != std::string::npos)
      return std::stoi(e.path().filename().string());
  }
  return -1;
}

// A scratch directory on the shared file system, removed unless the test failed.
class ClusterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    work_ = Cluster::dir() + "/work-" + info->name();
    std::filesystem::remove_all(work_);
    std::filesystem::create_directories(work_);
    // Sweeps started by the test (and their Slurm tasks, which inherit it) keep machine-wide
    // locks here, not in the real /run/hpcsens.
    ::setenv("HPCSENS_LOCK_DIR", (work_ + "/locks").c_str(), 1);
  }
  void TearDown() override {
    if (!HasFailure()) std::filesystem::remove_all(work_);
  }
  // The record `hpcsens run` named on stderr.
  static nlohmann::json record_of(const Result& r) {
    const auto at = r.err.find("hpcsens: record: ");
    if (at == std::string::npos) return nullptr;
    const auto start = at + 17;
    const auto path = r.err.substr(start, r.err.find_first_of(" \n", start) - start);
    std::ifstream in(path);
    return in ? nlohmann::json::parse(in) : nlohmann::json();
  }
  std::string work_;
};

}  // namespace hpcsens::cluster
