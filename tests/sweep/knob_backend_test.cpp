// Every registered knob backend through the same checks (one parameterised test over the
// registry): the spec selects it, what it writes is saved first and put back exactly by the
// restore, its restore actions are rebuilt from hpcsens's own code, and it changes the job's
// command line only where it should. A new backend without a case here fails the test.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>

#include "fake_sysfs.h"
#include "sweep/knobs/knob_backend.h"
#include "sweep/knobs/knobs.h"
#include "sweep/knobs/resctrl_fs.h"
#include "sweep/spec/plan.h"
#include "sweep/knobs/restore.h"

namespace fs = std::filesystem;

namespace hpcsens::sweep {
namespace {

// The real resctrl filesystem calls, with a fake tree's own mount table.
struct FakeMountTable : RealResctrlFs {
  std::string mounts_file(const std::string& root) const override { return root + "/.mounts"; }
};


struct BackendCase {
  std::function<void(const std::string& root)> make_tree;
  std::function<std::string(const std::string& root)> spec;
  std::string argv_must_contain;  // after job_argv at the first point ("" : argv unchanged)
  std::size_t commands = 0;       // commands apply() returns at the first point
};

const std::map<std::string, BackendCase>& cases() {
  static const std::map<std::string, BackendCase> c = {
      {"emulated",
       {[](const std::string&) {},
        [](const std::string&) { return "emulated: {W_cpu: 1, W_mem: 1, T_io: 0, mem_gbs: 10}\nknobs: {cpu_ghz: [1.0, 2.0]}\n"; },
        "", 0}},
      {"cpufreq",
       {[](const std::string& r) { testing::make_intel_pstate(r, 2); },
        [](const std::string& r) { return "job: {command: [./app]}\nknobs: {cpu_ghz: [2.0, 1.0]}\nbackends: {sysfs_root: '" + r + "'}\n"; },
        "", 0}},
      {"slurm",  // srun --cpu-freq needs a userspace governor on the node (acpi-cpufreq here)
       {[](const std::string& r) { testing::make_acpi_cpufreq(r, 2); },
        [](const std::string& r) { return "job: {command: [srun, ./app]}\nknobs: {cpu_ghz: [2.0], cpu_backend: slurm}\nbackends: {sysfs_root: '" + r + "'}\n"; },
        "--cpu-freq=2000000", 0}},
      {"likwid",
       {[](const std::string&) {},
        [](const std::string&) { return "job: {command: [./app]}\nknobs: {cpu_ghz: [2.0], uncore_ghz: [1.5], cpu_backend: likwid}\n"; },
        "", 2}},
      {"uncore",
       {[](const std::string& r) { testing::make_uncore(r, 2); },
        [](const std::string& r) { return "job: {command: [./app]}\nknobs: {uncore_ghz: [1.5, {min: 1.0, max: 2.0}]}\nbackends: {sysfs_root: '" + r + "'}\n"; },
        "", 0}},
      {"memory",
       {[](const std::string&) {},
        [](const std::string&) { return "job: {command: [srun, ./app]}\nknobs: {memory: [{name: ddr4, slurm_partition: p1}]}\n"; },
        "--partition=p1", 0}},
      {"resctrl",  // changes no file: its change is a group per point (resctrl_sweep_test.cpp)
       {[](const std::string& r) {
          testing::put(r + "/fs/resctrl/info/last_cmd_status", "ok");
          testing::put(r + "/fs/resctrl/info/MB/min_bandwidth", "10");
          testing::put(r + "/fs/resctrl/info/MB/bandwidth_gran", "10");
          testing::put(r + "/fs/resctrl/info/MB/delay_linear", "1");
          testing::put(r + "/fs/resctrl/schemata", "L3:0=fff\nMB:0=100");
          // The unit comes from the mount options: this tree's own mount table.
          testing::put(r + "/fs/resctrl/.mounts", "resctrl " + r + "/fs/resctrl resctrl rw,relatime 0 0\n");
          static FakeMountTable table;
          set_machine_resctrl(&table);
        },
        [](const std::string& r) {
          return "job: {command: [mpirun, ./app]}\nknobs: {memory_backend: resctrl, mem_bw: [100, 40]}\n"
                 "backends: {sysfs_root: '" + r + "'}\n";
        },
        "", 0}},
      {"network",  // the ranks' environment only: no file, no command, the argv unchanged
       {[](const std::string&) {},
        [](const std::string&) { return "job: {command: [mpirun, ./app]}\nknobs: {network: [{name: a, latency_us: 5}]}\n"; },
        "", 0}},
  };
  return c;
}

// Every file under root and its content: the restore must bring back exactly this.
std::map<std::string, std::string> snapshot(const std::string& root) {
  std::map<std::string, std::string> out;
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(root, ec))
    if (e.is_regular_file()) out[e.path().string()] = testing::get(e.path().string());
  return out;
}

const BackendEntry& entry(const std::string& name) {
  const auto& all = knob_backends();
  return *std::find_if(all.begin(), all.end(), [&](const BackendEntry& e) { return name == e.name; });
}

class EveryKnobBackend : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryKnobBackend, SavesWhatItWritesRestoresExactlyAndNamesOnlyKnownActions) {
  const std::string name = GetParam();
  ASSERT_TRUE(cases().count(name)) << "backend '" << name << "' has no case in knob_backend_test.cpp";
  const auto& c = cases().at(name);
  testing::TempDir t;
  const std::string root = t.path() + "/sys";
  fs::create_directories(root);
  c.make_tree(root);
  const auto spec = parse_spec_text(c.spec(root), t.path() + "/spec.yaml");
  const KnobSet knobs(spec, RealSysfs());

  // The spec selects this backend.
  const auto it = std::find_if(knobs.backends().begin(), knobs.backends().end(),
                               [&](const auto& b) { return b->name() == name; });
  ASSERT_NE(it, knobs.backends().end());
  const KnobBackend& b = **it;
  EXPECT_FALSE(b.describe().empty());

  const auto before = snapshot(root);
  const auto saved = save_files(RealSysfs(), b.files_to_save());
  const Plan plan = make_plan(spec, knobs.cpu_values());
  testing::RecordingSysfs io;
  const auto commands = b.apply(io, plan.points.at(0));
  EXPECT_EQ(commands.size(), c.commands);
  // Everything it wrote was saved first, under a name --restore accepts.
  const auto files = b.files_to_save();
  for (const auto& w : io.writes) {
    EXPECT_NE(std::find(files.begin(), files.end(), w.path), files.end()) << w.path << " written but not saved";
    const std::string base = w.path.substr(w.path.rfind('/') + 1);
    const auto& allowed = entry(name).restorable_files;
    EXPECT_NE(std::find(allowed.begin(), allowed.end(), base), allowed.end()) << base;
  }
  for (const auto& f : saved) EXPECT_EQ(restore_target_problem(f, spec.sysfs_root), "") << f.path;
  EXPECT_EQ(b.changes_machine(), !io.writes.empty() || !b.restore_actions().empty() || !commands.empty() ||
                                    b.resctrl_schemata(plan.points.at(0)).has_value());
  // Restore actions: declared in the registry, rebuilt from code.
  for (const auto& a : b.restore_actions()) {
    const auto& declared = entry(name).restore_actions;
    EXPECT_NE(std::find(declared.begin(), declared.end(), a), declared.end()) << a;
    EXPECT_TRUE(restore_action_argv(a).has_value()) << a;
  }
  // Restoring the saved values brings the tree back byte for byte.
  RealSysfs real;
  const auto r = restore_files(real, saved);
  EXPECT_TRUE(r.errors.empty());
  EXPECT_EQ(snapshot(root), before);

  const Argv base = spec.command;
  const Argv argv = b.job_argv(base, plan.points.at(0));
  if (c.argv_must_contain.empty()) EXPECT_EQ(argv, base);
  else EXPECT_NE(std::find(argv.begin(), argv.end(), c.argv_must_contain), argv.end());
}

std::vector<std::string> backend_names() {
  std::vector<std::string> out;
  for (const auto& e : knob_backends()) out.push_back(e.name);
  return out;
}

INSTANTIATE_TEST_SUITE_P(Registry, EveryKnobBackend, ::testing::ValuesIn(backend_names()),
                         [](const auto& info) { return info.param; });

TEST(SweepKnobRegistry, ASpecWithoutKnobsSelectsNoBackendAndActionsComeFromCodeOnly) {
  const auto spec = parse_spec_text("job: {command: [./app]}\n", "s.yaml");
  const KnobSet k(spec, RealSysfs());
  EXPECT_TRUE(k.backends().empty());
  EXPECT_FALSE(k.changes_machine());
  EXPECT_FALSE(restore_action_argv("sh -c 'touch /tmp/x'").has_value());
  EXPECT_FALSE(restore_action_argv("").has_value());
}

// --restore checks every journalled file against the recorded root before writing it.
TEST(SweepRestoreCheck, OnlyKnobFilesUnderTheRecordedRootWithPlainValues) {
  testing::TempDir t;
  const std::string root = t.path() + "/sys";
  testing::make_intel_pstate(root, 1);
  const std::string ok = testing::policy_dir(root, 0) + "/scaling_max_freq";
  EXPECT_EQ(restore_target_problem({ok, "3500000"}, root), "");
  EXPECT_NE(restore_target_problem({"/etc/passwd", "x"}, root), "");
  EXPECT_NE(restore_target_problem({root + "/../etc/scaling_max_freq", "1"}, root), "");
  EXPECT_NE(restore_target_problem({testing::policy_dir(root, 0) + "/scaling_driver", "x"}, root), "");
  EXPECT_NE(restore_target_problem({ok, "1\nrm -rf /"}, root), "");
  EXPECT_NE(restore_target_problem({ok, "1"}, ""), "");
  // A directory below the root that is a symlink out of it.
  fs::create_directories(t.path() + "/elsewhere");
  fs::create_directory_symlink(t.path() + "/elsewhere", root + "/devices/system/cpu/cpufreq/policy9");
  EXPECT_NE(restore_target_problem({root + "/devices/system/cpu/cpufreq/policy9/scaling_max_freq", "1"}, root), "");
}

}  // namespace
}  // namespace hpcsens::sweep
