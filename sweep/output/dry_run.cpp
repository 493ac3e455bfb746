#include "sweep/output/dry_run.h"

#include <algorithm>

#include <fmt/core.h>

#include "common/private_dir.h"
#include "common/text_terminal.h"
#include "sweep/journal/journal.h"
#include "sweep/knobs/restore.h"
#include "sweep/array/slurm_array.h"
#include "sweep/spec/sweep_common.h"

namespace hpcsens::sweep {
namespace {

void print_header(const SweepSpec& spec, const KnobSet& knobs, const Plan& plan, const std::string& dir) {
  const bool emu = spec.emulation.has_value();
  fmt::print("hpcsens sweep plan (dry run: nothing is changed){}\n", emu ? "  [EMULATED]" : "");
  fmt::print("spec: {}\noutput: {}\nknobs: {}\n", spec.source, dir, knobs.describe());
  if (emu) {
    const auto& e = *spec.emulation;
    fmt::print("EMULATED ground truth: W_cpu={} Gcycles, W_mem={} GB, T_io={} s, overlap={}, noise={}%, seed={}\n",
               num(e.w_cpu), num(e.w_mem), num(e.t_io), num(e.overlap), num(e.noise_pct), e.seed);
  }
  fmt::print("points ({}):\n", plan.points.size());
  for (const auto& p : plan.points) {
    std::string extra;
    if (p.memory) {
      const auto& m = spec.memory[std::size_t(*p.memory)];
      if (!m.manual.empty()) extra = "  (manual step: " + m.manual + ")";
      if (m.emulated_gbs) extra += "  (EMULATED " + num(*m.emulated_gbs) + " GB/s)";
    }
    fmt::print("  p{:02d}  {}{}\n", p.index, p.label, extra);
  }
  fmt::print("runs: {} = {} points x {} repetitions, order {}{}, retries {}, timeout {}\n", plan.runs.size(),
             plan.points.size(), spec.repetitions, spec.randomized ? "randomized, seed " : "sequential",
             spec.randomized ? std::to_string(spec.seed) : "", spec.retries,
             spec.timeout_s > 0 ? num(spec.timeout_s) + " s" : "none");
}

void print_saved_files(const KnobSet& knobs, const SweepOptions& opt, const std::string& dir) {
  const auto saved = knobs.files_to_save();
  // The same classification the restore will make, from the values the sweep would save now.
  std::vector<RestoreSkip> skips;
  try {
    skips = restore_skips(save_files(DryRunSysfs(), saved));
  } catch (const std::exception& e) {
    fmt::print("knob files: {}\n", text::escape_for_terminal(e.what()));
  }
  if (saved.empty())
    fmt::print("knob files saved to the journal before the first change: none (no sysfs knob is written)\n");
  else
    fmt::print("knob files saved to the journal before the first change, restored at the end ({} files{}):\n",
               saved.size(), skips.empty() ? "" : fmt::format("; {} restored, {} skipped", saved.size() - skips.size(), skips.size()));
  for (const auto& f : saved) {
    const auto k = std::find_if(skips.begin(), skips.end(), [&](const RestoreSkip& s) { return s.path == f; });
    if (k == skips.end()) fmt::print("  {}\n", f);
    else fmt::print("  {}  (not restored: {})\n", f, k->reason);
  }
  fmt::print("output files: {0}/{1} (journal), {0}/records/<run id>.json, {0}/results.csv{2}\n", dir,
             kJournalName, opt.run_fit ? ", " + dir + "/model.json" : "");
  for (const auto& a : knobs.restore_actions())
    fmt::print("restore action: {} (runs {})\n", a, shell_join(restore_action_argv(a).value_or(Argv{})));
}

// Returns false when the point's knobs cannot be applied (said as a "knob error" line).
bool print_point_change(const SweepSpec& spec, const KnobSet& knobs, const Point& p, const SweepOptions& opt,
                        DryRunSysfs& io) {
  std::vector<Argv> cmds;
  bool ok = true;
  try {
    cmds = knobs.apply(io, p);
  } catch (const std::exception& e) {
    fmt::print("        knob error: {}\n", text::escape_for_terminal(e.what()));
    ok = false;
  }
  const auto set = knobs.set_values(p);
  if (set.contains("cpu_ghz_set") && p.cpu_ghz)
    fmt::print("        core clock: requested {} GHz, set {} GHz{}\n", num(*p.cpu_ghz), num(set["cpu_ghz_set"].get<double>()),
               set.value("cpu_above_base", false) ? " (ABOVE BASE: turbo point)" : "");
  for (const auto& w : io.take_writes()) fmt::print("        write {} <- {}\n", w.path, w.value);
  if (const auto mb = knobs.resctrl_schemata(p))
    fmt::print("        resctrl group {}/hpcsens-TOKEN (one for the sweep, made at its first point): schemata <- {} "
               "(requested {}, {}); the calibrator and the job's launcher join it; removed when the sweep ends\n",
               knobs.resctrl_root(), *mb, p.mem_bw.value_or(0), set.value("mem_bw_unit", ""));
  if (knobs.resctrl_schemata(p) && slurm_nnodes() > 1)
    fmt::print("        the same group on each of the allocation's {} nodes (--apply-point); the job's Open MPI launcher "
               "gets the launch agent '{} resctrl-join ... -- orted' (5.x: prted), so the other nodes' ranks join it\n",
               slurm_nnodes(), opt.hpcsens_exe);
  for (const auto& c : cmds) fmt::print("        run   {}\n", shell_join(c));
  if (p.memory && !spec.memory[std::size_t(*p.memory)].manual.empty())
    fmt::print("        manual step: {}\n", spec.memory[std::size_t(*p.memory)].manual);
  if (spec.emulation || !(spec.calibration.stream || spec.calibration.clock)) return ok;
  Argv cal;
  try {
    cal = spec.calibration.launcher.empty()
              ? launcher_prefix(knobs.job_argv(spec.command, p), spec.calibration.ranks.value_or(0))
              : spec.calibration.launcher;
  } catch (const std::exception& e) {
    fmt::print("        calibration error: {}\n", text::escape_for_terminal(e.what()));
  }
  cal.push_back(opt.stream_exe);
  fmt::print("        calibrate {}\n", shell_join(cal));
  return ok;
}

}  // namespace

bool print_plan(const SweepSpec& spec, const KnobSet& knobs, const Plan& plan, const SweepOptions& opt,
                const std::string& dir) {
  const bool emu = spec.emulation.has_value();
  print_header(spec, knobs, plan, dir);
  if (spec.execution == Execution::kSlurmArray) {
    const std::string adir = dir + "/" + kArrayDir;
    fmt::print("execution: slurm-array; first submission (one argument per word, no shell):\n        {}\n",
               shell_join(array_sbatch_argv(spec, {"hpcsens-TOKEN-0", plan.runs.size(), adir + "/task-0-%a.out", dir,
                                                   safe_file::private_dir_pattern("sbatch") + "/task-0.sh"})));
  }
  print_saved_files(knobs, opt, dir);
  DryRunSysfs io;
  bool ok = true;
  int current = -1;
  int n = 0;
  for (const auto& r : plan.runs) {
    const auto& p = plan.points[std::size_t(r.point)];
    fmt::print("{:4d}. {}  {}{}\n", ++n, r.id, p.label, emu ? "  EMULATED" : "");
    if (r.point != current) {
      current = r.point;
      ok = print_point_change(spec, knobs, p, opt, io) && ok;
    }
    if (!emu) fmt::print("        command {}\n", shell_join(knobs.job_argv(spec.command, p)));
    for (const auto& [name, value] : knobs.rank_env(p)) fmt::print("        ranks' environment {}={}\n", name, value);
  }
  return ok;
}

}  // namespace hpcsens::sweep
