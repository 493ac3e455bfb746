// The whole sweep lifecycle over every driver layout of the kernel model, through the real CLI
// (hpcsens-kernel-model: bin/hpcsens with the model installed): every point runs at the clock
// the record says was set (read by the job itself from what the model runs the CPUs at), and
// the tree, the driver's hidden state included, is back byte for byte after a normal end, a
// failing job, SIGTERM mid-run, and kill -9 + --restore.
#include <signal.h>

#include <cmath>

#include "kernel_model.h"
#include "sweep_cli_helpers.h"

namespace hpcsens::sweep {
namespace {

using namespace testing;
using nlohmann::json;

class Lifecycle : public ::testing::TestWithParam<KernelLayout> {
 protected:
  TempDir t;
  std::string root = t.path() + "/sys", out = t.path() + "/out", clocks = t.path() + "/clocks.txt";
  std::map<std::string, std::string> before;

  void SetUp() override {
    build_layout(root, GetParam());
    before = snapshot(root);
    // The job reads the clocks the model runs the CPUs and uncore at, then runs an MPI rank.
    put(t.path() + "/job.sh", "for f in " + root + "/devices/system/cpu/cpufreq/policy*/scaling_cur_freq " + root +
                                  "/devices/system/cpu/intel_uncore_frequency/*/current_freq_khz; do\n"
                                  "  [ -r \"$f\" ] && printf '%s=%s ' \"${f#" + root + "/}\" \"$(cat \"$f\")\"\n"
                                  "done >> " + clocks + "\necho >> " + clocks + "\nexec " + kStream +
                                  " --array-bytes 4000000 --ntimes 3\n");
  }
  // The clock is not measured: this VM's cores are not the model's; the job reads the model's.
  std::string spec(const std::string& command) const {
    return "job:\n  command: " + command + "\n  timeout_s: 60\nknobs:\n  cpu_ghz: [1.6, 2.1]\n" +
           (GetParam().uncore.empty() ? "" : "  uncore_ghz: [1.5]\n") + "backends: {sysfs_root: '" + root +
           "'}\ncalibration: {stream: false, clock: false}\nretries: 0\norder: sequential\n";
  }
  std::string job() const { return "[mpirun, -np, '1', --oversubscribe, sh, '" + t.path() + "/job.sh']"; }
  Result sweep(const std::string& command) {
    put(t.path() + "/spec.yaml", spec(command));
    return run({kHpcsens, "sweep", t.path() + "/spec.yaml", "-o", out, "--no-fit"}, t.path(), 120);
  }
  void expect_restored() {
    const auto now = snapshot(root);
    for (const auto& [path, text] : before) EXPECT_EQ(now.count(path) ? now.at(path) : "<missing>", text) << path;
    EXPECT_EQ(now.size(), before.size());
  }
  bool online(const std::string& policy_path) const {
    for (int c : GetParam().offline_cpus)
      if (policy_path.find("policy" + std::to_string(c) + "/") != std::string::npos) return false;
    return true;
  }
};

// The clock the driver runs a request at: acpi-cpufreq rounds up to its table, the others run it.
long expected_khz(const KernelLayout& l, double ghz) {
  const long k = std::lround(ghz * 1e6);
  for (long t : l.table)
    if (t >= k) return t;
  return k;
}

TEST_P(Lifecycle, EveryPointRunsAtTheSetClockAndTheTreeIsRestoredAfterANormalEnd) {
  const auto r = sweep(job());
  ASSERT_EQ(r.status, 0) << r.err;
  expect_restored();
  std::ifstream in(clocks);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 2u);
  const double requested[] = {1.6, 2.1};
  for (int i = 0; i < 2; ++i) {
    std::ifstream rin(out + "/records/p0" + std::to_string(i) + "-r1.json");
    const auto rec = json::parse(rin);
    const long want = expected_khz(GetParam(), requested[i]);
    EXPECT_EQ(rec["config"]["cpu_ghz_requested"], requested[i]);
    EXPECT_DOUBLE_EQ(rec["config"]["cpu_ghz_set"].get<double>(), want / 1e6);
    EXPECT_DOUBLE_EQ(rec["config"]["cpu_ghz"].get<double>(), want / 1e6);  // what the fit uses
    EXPECT_EQ(rec["config"]["cpu_ghz_source"], "set");
    EXPECT_EQ(rec["config"]["cpu_above_base"], false);
    std::istringstream fields(lines[std::size_t(i)]);
    int policies = 0;
    for (std::string f; fields >> f;) {
      const auto eq = f.find('=');
      const std::string path = f.substr(0, eq), value = f.substr(eq + 1);
      if (path.find("scaling_cur_freq") != std::string::npos && online(path)) {
        EXPECT_EQ(value, std::to_string(want)) << path << " at point " << i;
        ++policies;
      }
      // Only compute dies move; TPMI I/O dies keep their clock.
      const bool io_die = path.find("uncore01/") != std::string::npos || path.find("uncore02/") != std::string::npos;
      if (path.find("current_freq_khz") != std::string::npos) {
        EXPECT_EQ(value, io_die ? "2000000" : "1500000") << path;
      }
    }
    EXPECT_EQ(policies, GetParam().policies - int(GetParam().offline_cpus.size()));
  }
  if (!GetParam().offline_cpus.empty()) {
    const std::string said = r.out + r.err;
    EXPECT_NE(said.find("skipped (every CPU offline): policy1"), std::string::npos) << said;
  }
}

TEST_P(Lifecycle, AFailingJobStillRestoresTheTree) {
  const auto r = sweep("[sh, -c, 'exit 3']");
  EXPECT_EQ(r.status, 1) << r.err;
  expect_restored();
}

TEST_P(Lifecycle, SigtermMidRunRestoresTheTree) {
  put(t.path() + "/spec.yaml", spec("[sleep, '30']"));
  const auto p = spawn({kHpcsens, "sweep", t.path() + "/spec.yaml", "-o", out, "--no-fit"}, t.path());
  ASSERT_TRUE(eventually([&] { return !descendants_named(p.pid, "sleep").empty(); }, 30)) << get(p.err_path);
  EXPECT_NE(snapshot(root), before);  // mid-run: the sweep's values
  ::kill(p.pid, SIGTERM);
  EXPECT_EQ(wait_for(p, 30), 143) << get(p.err_path);
  expect_restored();
}

TEST_P(Lifecycle, KillNineThenRestoreFromTheJournalRestoresTheTree) {
  put(t.path() + "/spec.yaml", spec("[sleep, '30']"));
  const auto p = spawn({kHpcsens, "sweep", t.path() + "/spec.yaml", "-o", out, "--no-fit"}, t.path());
  std::vector<pid_t> sleeps;
  ASSERT_TRUE(eventually([&] { return !(sleeps = descendants_named(p.pid, "sleep")).empty(); }, 30)) << get(p.err_path);
  ::kill(p.pid, SIGKILL);
  EXPECT_EQ(wait_for(p, 10), 128 + SIGKILL);
  for (pid_t s : sleeps) ::kill(s, SIGKILL);
  EXPECT_NE(snapshot(root), before);
  const auto r = run({kHpcsens, "sweep", "--restore", out}, t.path());
  EXPECT_EQ(r.status, 0) << r.err;
  expect_restored();
}

INSTANTIATE_TEST_SUITE_P(EveryDriver, Lifecycle, ::testing::ValuesIn(all_layouts()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace hpcsens::sweep
