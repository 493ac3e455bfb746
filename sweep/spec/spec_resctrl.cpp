// knobs.memory_backend: resctrl and knobs.mem_bw (docs/spec-format.md, "Live memory
// bandwidth"), and the rules a resctrl sweep must meet.
#include "sweep/spec/knob_root_rule.h"
#include "sweep/spec/launch_argv.h"
#include "sweep/spec/spec_reader.h"

namespace hpcsens::sweep {

std::string resctrl_root_of(const SweepSpec& spec) {
  if (!spec.resctrl_root.empty()) return spec.resctrl_root;
  return (spec.sysfs_root == "/" ? "" : spec.sysfs_root) + "/fs/resctrl";
}

}  // namespace hpcsens::sweep

namespace hpcsens::sweep::spec_detail {

// The largest MB value any kernel takes (mounted with mba_MBps: MiB/s up to 2^32 - 1); the
// backend checks the node's own range and unit (sweep/knobs/resctrl_mb.h).
inline constexpr long kMaxMbValue = 4294967295L;

void parse_memory_backend(const Reader& r, const YAML::Node& n, SweepSpec& s) {
  if (n["memory_backend"]) {
    const auto b = r.str(n["memory_backend"], "knobs.memory_backend");
    if (b != "resctrl" && b != "declared")
      r.fail(n["memory_backend"], "knobs.memory_backend", "must be declared or resctrl, got '" + b + "'");
    s.memory_resctrl = b == "resctrl";
  }
  if (!n["mem_bw"]) {
    if (s.memory_resctrl)
      r.fail(n["memory_backend"], "knobs.mem_bw",
             "missing: memory_backend: resctrl needs the MB: values to sweep (Intel: percent, e.g. [100, 50, 20]; "
             "hpcsens doctor shows this node's range)");
    return;
  }
  const auto& v = n["mem_bw"];
  s.mem_bw_line = v.Mark().line + 1;
  if (!s.memory_resctrl) r.fail(v, "knobs.mem_bw", "needs knobs.memory_backend: resctrl");
  if (!v.IsSequence() || v.size() == 0) r.fail(v, "knobs.mem_bw", "must be a non-empty list of MB: values");
  if (v.size() > kMaxTotalRuns) r.fail(v, "knobs.mem_bw", "has more values than the limit of runs");
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string fi = "knobs.mem_bw[" + std::to_string(i) + "]";
    const long x = r.integer(v[i], fi, 0, kMaxMbValue);
    for (std::size_t k = 0; k < s.mem_bw.size(); ++k)
      if (s.mem_bw[k] == x)
        r.fail(v[i], fi, "duplicate value (same as knobs.mem_bw[" + std::to_string(k) + "]); each point must differ");
    s.mem_bw.push_back(x);
  }
}

void check_resctrl_spec(const Reader& r, const YAML::Node& root, const SweepSpec& s) {
  if (!s.memory_resctrl) return;
  const auto where = root["knobs"]["memory_backend"];
  const std::string f = "knobs.memory_backend";
  if (!s.memory.empty())
    r.fail(where, f, "resctrl throttles this node's memory live; it does not combine with declared knobs.memory "
                     "configurations (sweep them separately)");
  if (s.emulation) r.fail(where, f, "resctrl needs real runs; the emulated launcher has no memory to throttle");
  if (s.execution == Execution::kSlurmArray)
    r.fail(where, f, "resctrl groups are made on the sweep's own node; execution: slurm-array runs elsewhere");
  if (!s.calibration.stream)
    r.fail(where, f, "resctrl needs calibration.stream: on: an MB: value is a throttle, not GB/s, so the "
                     "bandwidth the model uses is the STREAM Triad measured inside each point's group");
  if (!s.command.empty() && is_srun(s.command))
    r.fail(where, f, "resctrl puts the launcher in the group and its ranks inherit it, but srun's tasks are "
                     "started by slurmstepd, outside the group: run the job with mpirun/mpiexec on this node");
}

namespace {

void check_root(const Reader& r, const YAML::Node& where, const std::string& field, const std::string& path) {
  if (auto why = knob_root_problem(path); !why.empty())
    r.fail(where, field, "'" + path + "' cannot be a knob tree: " + why + ". hpcsens writes knob files there as you; " +
                         "another user who owns or can write a directory of it could redirect those writes. Use a " +
                         "tree only you (or root) own and can write, e.g. the kernel's /sys");
}

}  // namespace

void check_knob_roots(const Reader& r, const YAML::Node& root, const SweepSpec& s) {
  const auto b = root["backends"];
  if (!b) return;  // the defaults are the kernel's own /sys and /sys/fs/resctrl
  if (b["sysfs_root"]) check_root(r, b["sysfs_root"], "backends.sysfs_root", s.sysfs_root);
  if (b["resctrl_root"]) check_root(r, b["resctrl_root"], "backends.resctrl_root", s.resctrl_root);
  else if (s.memory_resctrl && b["sysfs_root"])
    check_root(r, b["sysfs_root"], "backends.sysfs_root", resctrl_root_of(s));
}

}  // namespace hpcsens::sweep::spec_detail
