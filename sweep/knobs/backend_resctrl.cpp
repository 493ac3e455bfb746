// Memory bandwidth through Linux resctrl Memory Bandwidth Allocation (memory_backend: resctrl):
// one group per point with the point's MB: value on every domain, the job's launcher put in it
// before the ranks start (resctrl_fs.h, join_job_group), STREAM measured inside it. The group's
// life (journal, create, remove) is the machine's (machine.cpp, point_group.h); on several nodes
// every node's (--apply-point), the other nodes' ranks joining through a launch agent.
#include <fmt/core.h>

#include "common/errors.h"
#include "mpi/launcher.h"
#include "sweep/knobs/knob_backend.h"
#include "sweep/knobs/resctrl_mb.h"
#include "sweep/spec/sweep_common.h"

namespace hpcsens::sweep {
namespace {

class ResctrlBackend : public KnobBackend {
 public:
  explicit ResctrlBackend(ResctrlInfo info) : info_(std::move(info)) {}
  std::string name() const override { return "resctrl"; }
  std::string describe() const override {
    std::string ids;
    for (const auto& d : info_.domains) ids += (ids.empty() ? "" : ",") + d.id;
    return fmt::format("memory bandwidth: resctrl MBA at {} ({} domains {}; MB: in {}, {}..{}, step {}), one group per "
                       "point, STREAM measured inside it",
                       info_.root, info_.domains.size(), ids, mb_unit_name(info_.unit), info_.min_bandwidth, info_.max,
                       info_.bandwidth_gran);
  }
  bool changes_machine() const override { return true; }
  std::optional<long> mem_bw_set(long requested) const override { return mb_set_value(info_, requested, nullptr); }
  std::string mem_bw_unit() const override { return mb_unit_name(info_.unit); }
  std::string resctrl_root() const override { return info_.root; }
  std::optional<std::string> resctrl_schemata(const Point& p) const override {
    if (!p.mem_bw) return std::nullopt;
    const auto set = mb_set_value(info_, *p.mem_bw, nullptr);
    if (!set) return std::nullopt;
    return mb_schemata_line(info_.domains, *set);
  }
 private:
  ResctrlInfo info_;
};

// On several nodes each node makes its group (--apply-point), and the other nodes' ranks join it
// through Open MPI's launch agent (sweep/execute/resctrl_join.h). resctrl puts a task in its
// parent's group at fork, and every other launcher starts its remote side from a process
// outside ours with no agent we can name: Slurm's slurmstepd, MPICH hydra's proxy (its
// -launcher-exec replaces ssh, not the proxy).
std::string launcher_words(mpi::LauncherKind kind) {
  switch (kind) {
    case mpi::LauncherKind::kMpichHydra: return "MPICH Hydra";
    case mpi::LauncherKind::kSlurm: return "Slurm's srun";
    case mpi::LauncherKind::kSingleton: return "a program or script, not a launcher";
    default: return "a launcher hpcsens cannot identify";
  }
}

void refuse_unjoinable_launchers(const SweepSpec& spec, const std::string& where) {
  std::vector<Argv> launchers = {spec.command};
  if (!spec.calibration.launcher.empty()) launchers.push_back(spec.calibration.launcher);
  for (const auto& argv : launchers) {
    const auto kind = argv.empty() ? mpi::LauncherKind::kUnknown : mpi::detect_launcher(argv[0]);
    if (kind == mpi::LauncherKind::kOpenMpi) continue;
    throw InputError(where, "knobs.memory_backend: resctrl on this allocation's " + std::to_string(slurm_nnodes()) +
                                " nodes needs Open MPI's mpirun to start the ranks: each node makes the point's "
                                "group, and the other nodes' ranks join it through Open MPI's launch agent (hpcsens "
                                "resctrl-join), but '" + (argv.empty() ? std::string("(none)") : argv[0]) + "' is " +
                                launcher_words(kind) + ": ranks it starts on the other nodes would start outside any group and run "
                                "unthrottled. Use Open MPI's mpirun for the job (and calibration.launcher), or run "
                                "the sweep inside a one-node allocation");
  }
}

}  // namespace

std::unique_ptr<KnobBackend> make_resctrl_backend(const SweepSpec& spec, const SysfsIo& io) {
  if (!spec.memory_resctrl) return nullptr;
  const std::string where = spec_line(spec, spec.mem_bw_line);
  auto info = probe_resctrl(io, resctrl_root_of(spec));
  if (!info.problem.empty())
    throw InputError(where, "knobs.memory_backend: resctrl: " + info.problem +
                                " (hpcsens doctor shows what this node offers; without MBA, declare memory "
                                "configurations instead: knobs.memory)");
  if (slurm_nnodes() > 1) refuse_unjoinable_launchers(spec, where);
  for (long v : spec.mem_bw) {
    std::string why;
    if (!mb_set_value(info, v, &why)) throw InputError(where, "knobs.mem_bw: " + why + " on this node (" + info.root + ")");
  }
  return std::make_unique<ResctrlBackend>(std::move(info));
}

}  // namespace hpcsens::sweep
