#pragma once
// What the slurm-array cluster tests share: a sweep of 4 runs (2 clock points x 2 repetitions,
// at most 2 tasks at a time, each a 2-rank srun job that fills one node), its journal, the
// controller's process, and the check that every run is there exactly once. Each job appends its
// run id (from rank 0) to started.log, so a run started twice shows.
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "cluster_env.h"

namespace hpcsens::cluster {

inline const std::string kHpcsens = HPCSENS_EXE;

inline std::vector<nlohmann::json> journal(const std::string& path) {
  std::vector<nlohmann::json> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(nlohmann::json::parse(line, nullptr, false));
  return out;
}

inline int count_type(const std::string& out, const std::string& type, const std::string& status = "") {
  int n = 0;
  for (const auto& e : journal(out + "/journal.jsonl"))
    n += e.value("type", "") == type && (status.empty() || e.value("status", "") == status);
  return n;
}

// The journal's lines of one type, in order.
inline std::vector<nlohmann::json> lines_of(const std::string& out, const std::string& type) {
  std::vector<nlohmann::json> v;
  for (const auto& e : journal(out + "/journal.jsonl"))
    if (e.value("type", "") == type) v.push_back(e);
  return v;
}

// The controller (not an array task, whose command line also names the spec).
inline pid_t controller_pid(const std::string& spec) {
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    const std::string cmd = get(e.path().string() + "/cmdline");
    if (cmd.rfind(kHpcsens + '\0' + "sweep", 0) == 0 && cmd.find(spec) != std::string::npos &&
        cmd.find("--array-task") == std::string::npos)
      return std::stoi(e.path().filename().string());
  }
  return -1;
}

class ArraySweep : public ClusterTest {
 protected:
  void SetUp() override {
    ClusterTest::SetUp();
    aux_ = work_ + "/aux";  // cwd of commands run beside the controller (each writes its stdout.txt)
    std::filesystem::create_directories(aux_);
    out_ = work_ + "/sweep";
    spec_ = work_ + "/spec.yaml";
    write_job("");
    write_spec("retries: 0\n");
  }

  // `fail_if` (a shell test on $HPCSENS_RUN_ID) makes those runs exit 3 after logging their start.
  void write_job(const std::string& fail_if) {
    put(work_ + "/job.sh", "#!/bin/sh\n[ \"$SLURM_PROCID\" = 0 ] && echo \"$HPCSENS_RUN_ID\" >> " + work_ +
                               "/started.log\n" + (fail_if.empty() ? "" : "if " + fail_if + "; then exit 3; fi\n") +
                               "sleep 1\nexec " + CLUSTER_PROG_OMPI + "\n");
    std::filesystem::permissions(work_ + "/job.sh", std::filesystem::perms::owner_all);
  }
  // The namespace hosts have no cpufreq, where srun --cpu-freq cannot take effect and the
  // sweep refuses cpu_backend: slurm: the nodes are declared as acpi-cpufreq ones (a userspace
  // governor) through a fake tree. Their cores are not that tree's, so the clock is not measured.
  void write_spec(const std::string& extra) {
    sweep::testing::make_acpi_cpufreq(work_ + "/sys", 2);
    put(spec_, "execution: slurm-array\narray_max_running: 2\n"
               "job:\n  command: [srun, --mpi=pmix, -n, '2', '" + work_ + "/job.sh']\n  timeout_s: 30\n" +
               "knobs:\n  cpu_ghz: [1.2, 2.0]\n  cpu_backend: slurm\nrepetitions: 2\nseed: 5\n" +
               "output: " + out_ + "\ncalibration: {stream: false, clock: false}\nbackends: {sysfs_root: '" + work_ +
               "/sys'}\n" + extra);
  }

  // How often each run's job started (attempt suffix dropped).
  std::map<std::string, int> starts() const {
    std::map<std::string, int> started;
    std::ifstream log(work_ + "/started.log");
    for (std::string line; std::getline(log, line);) ++started[line.substr(0, line.rfind("-a"))];
    return started;
  }

  // Every run exactly once: one record each, one "ok" line each, one start each; both nodes.
  void expect_complete() {
    std::set<std::string> ids, nodes;
    for (const auto& e : std::filesystem::directory_iterator(out_ + "/records")) {
      std::ifstream in(e.path());
      const auto rec = nlohmann::json::parse(in);
      EXPECT_EQ(rec["complete"], true) << e.path();
      EXPECT_EQ(rec["config"]["sweep_run_id"].get<std::string>() + ".json", e.path().filename().string());
      nodes.insert(rec["config"]["node"].get<std::string>());
      ids.insert(e.path().stem().string());
    }
    EXPECT_EQ(ids, (std::set<std::string>{"p00-r1", "p00-r2", "p01-r1", "p01-r2"}));
    EXPECT_EQ(nodes, (std::set<std::string>{"node0", "node1"}));
    std::map<std::string, int> ok;
    for (const auto& e : journal(out_ + "/journal.jsonl"))
      if (e.value("type", "") == "run" && e.value("status", "") == "ok") ++ok[e["id"].get<std::string>()];
    auto started = starts();
    for (const auto& id : ids) {
      EXPECT_EQ(ok[id], 1) << id;
      EXPECT_EQ(started[id], 1) << id << " started more than once (or never)";
    }
  }

  // Starts the controller on node0 in the background; returns once sbatch's job id is journalled.
  sweep::testing::Proc start_controller() {
    auto proc = sweep::testing::spawn(
        {"/bin/bash", kScript, "exec", Cluster::dir(), "node0", kHpcsens, "sweep", "--no-fit", spec_}, work_);
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (count_type(out_, "array_submitted") < 1 && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return proc;
  }
  std::string job_id(int submission = 0) {
    for (const auto& e : lines_of(out_, "array_submitted"))
      if (e.value("submission", -1) == submission) return e.value("job_id", "");
    return "";
  }
  // Cancels one task of the array (still pending: 2 run first, each for 1 s at least).
  void scancel_task(const std::string& job, int task) {
    const auto r = on_host("node0", {"scancel", job + "_" + std::to_string(task)}, aux_);
    ASSERT_EQ(r.status, 0) << r.out << r.err;
  }
  void kill_controller(const sweep::testing::Proc& proc) {
    const pid_t ctl = controller_pid(spec_);
    ASSERT_GT(ctl, 0);
    ASSERT_EQ(::kill(ctl, SIGKILL), 0);
    sweep::testing::wait_for(proc, 30);
  }
  // Waits until Slurm has no job of this sweep in its queue.
  void wait_queue_empty(const std::string& job) {
    for (int i = 0; i < 300; ++i) {
      const auto r = on_host("node0", {"squeue", "-h", "-j", job, "-o", "%i"}, aux_);
      if (r.status == 0 && r.out.find_first_not_of(" \n") == std::string::npos) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    FAIL() << "array job " << job << " still queued after 30 s";
  }

  std::string aux_, out_, spec_;
};

}  // namespace hpcsens::cluster
