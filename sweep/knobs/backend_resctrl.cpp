// Memory bandwidth through Linux resctrl Memory Bandwidth Allocation (memory_backend: resctrl):
// one group per point with the point's MB: value on every domain, the job's launcher put in it
// before the ranks start (resctrl_fs.h, join_job_group), STREAM measured inside it. The group's
// life (journal, create, remove) is the machine's (machine.cpp, resctrl_groups.h).
#include <fmt/core.h>

#include "common/errors.h"
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

}  // namespace

std::unique_ptr<KnobBackend> make_resctrl_backend(const SweepSpec& spec, const SysfsIo& io) {
  if (!spec.memory_resctrl) return nullptr;
  const std::string where = spec_line(spec, spec.mem_bw_line);
  auto info = probe_resctrl(io, resctrl_root_of(spec));
  if (!info.problem.empty())
    throw InputError(where, "knobs.memory_backend: resctrl: " + info.problem +
                                " (hpcsens doctor shows what this node offers; without MBA, declare memory "
                                "configurations instead: knobs.memory)");
  if (slurm_nnodes() > 1)
    // Making the group on every node is the easy half; the ranks are the hard one. resctrl puts a
    // task in the group of its parent at fork, and on the other nodes every launcher starts its
    // daemon (orted/prted via srun or ssh, hydra's proxy, slurmstepd) from a process outside ours.
    throw InputError(where, "knobs.memory_backend: resctrl makes its groups on this node only, and this allocation "
                            "has " + std::to_string(slurm_nnodes()) + " nodes: the launcher's daemons on the other "
                            "nodes (orted/prted started by srun or ssh, the hydra proxy, slurmstepd) would start "
                            "outside any group, so their ranks would run unthrottled. Run the resctrl sweep inside a "
                            "one-node allocation (per-node groups are not supported yet)");
  for (long v : spec.mem_bw) {
    std::string why;
    if (!mb_set_value(info, v, &why)) throw InputError(where, "knobs.mem_bw: " + why + " on this node (" + info.root + ")");
  }
  return std::make_unique<ResctrlBackend>(std::move(info));
}

}  // namespace hpcsens::sweep
