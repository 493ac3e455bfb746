#include <fmt/core.h>
#include <unistd.h>

#include <filesystem>

#include "cli/commands.h"
#include "common/errors.h"
#include "common/safe_file.h"
#include "run/run_job.h"
#include "sweep/journal/journal.h"
#include "sweep/runner.h"
#include "sweep/array/slurm_array.h"
#include "sweep/spec/spec.h"

namespace hpcsens::cli {
namespace {

std::string self_exe() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("hpcsens") : p.string();
}

// The spec a journal was started with, for `--resume DIR` without a spec argument.
std::string spec_from_journal(const std::string& dir) {
  const std::string path = dir + "/" + sweep::kJournalName;
  if (!std::filesystem::exists(path)) throw InputError(dir, "has no sweep journal to resume");
  safe_file::Dir d;
  if (auto err = safe_file::open_dir(dir, false, &d); !err.empty()) throw InputError(dir, err);
  const auto st = sweep::replay_journal(sweep::read_journal(d));
  if (!st.header || !st.header->contains("spec") || !(*st.header)["spec"].is_string())
    throw InputError(path, "has no header line naming the spec");
  return (*st.header)["spec"].get<std::string>();
}

}  // namespace

void add_sweep(CLI::App& app, Registry& reg) {
  auto* sub = app.add_subcommand("sweep", "Run a job across CPU, uncore and memory configurations, then fit");
  struct Opts {
    std::string spec, out, resume, restore, dir;
    bool dry_run = false, no_fit = false, retry_skipped = false;
    int apply_point = -1, array_task = -1;
  };
  auto o = std::make_shared<Opts>();
  sub->add_option("spec", o->spec, "Sweep spec (YAML); see docs/spec-format.md");
  sub->add_flag("--dry-run", o->dry_run, "Print the plan (points, order, commands, knob writes); change nothing");
  sub->add_option("--resume", o->resume, "Continue the sweep journalled in DIR (no run repeated or lost)");
  sub->add_flag("--retry-skipped", o->retry_skipped,
                "With --resume: also run again the runs skipped after their retries (default: only missing runs)");
  sub->add_option("--restore", o->restore, "Restore the knob values saved in DIR's journal (after a kill -9)");
  sub->add_option("-o,--output,--out", o->out, "Output directory (overrides the spec's output:)");
  sub->add_flag("--no-fit", o->no_fit, "Do not run `hpcsens fit` at the end");
  sub->add_option("--apply-point", o->apply_point,
                  "Multi-node helper: apply point N's knobs on this node (run once per node through srun)");
  sub->add_option("--array-task", o->array_task,
                  "slurm-array helper: run this Slurm array task's run of submission K (started by the sweep's batch script)");
  sub->add_option("--dir", o->dir, "Sweep directory for --apply-point and --array-task");
  reg.add(sub, [o, sub] {
    // The modes exclude each other: a silently ignored option would do something the user did
    // not ask for (e.g. restore instead of resume, or resume with another spec than journalled).
    auto refuse = [](const std::string& what) { throw InputError("hpcsens sweep", what); };
    if (!o->restore.empty()) {
      if (!o->resume.empty()) refuse("--restore and --resume exclude each other (restore knobs, or continue the sweep)");
      if (!o->spec.empty()) refuse("--restore DIR takes no spec file (the journal in DIR has all it needs)");
      if (o->dry_run || o->no_fit || o->retry_skipped || !o->out.empty() || o->apply_point >= 0 || !o->dir.empty())
        refuse("--restore DIR takes no other option");
      return sweep::restore_from_journal(o->restore);
    }
    if (!o->resume.empty()) {
      if (!o->spec.empty()) refuse("--resume DIR takes no spec file (it resumes with the spec named in DIR's journal)");
      if (!o->out.empty()) refuse("--resume DIR and -o/--out exclude each other (DIR is the output directory)");
      if (o->apply_point >= 0 || o->array_task >= 0 || !o->dir.empty())
        refuse("--resume and --apply-point/--array-task/--dir exclude each other");
    }
    if (o->retry_skipped && o->resume.empty()) refuse("--retry-skipped needs --resume DIR");
    if ((o->apply_point >= 0 || o->array_task >= 0) && (o->dry_run || !o->out.empty()))
      refuse("--apply-point and --array-task take only a spec and --dir");
    if (o->apply_point >= 0 && o->array_task >= 0) refuse("--apply-point and --array-task exclude each other");
    std::string spec_path = o->spec;
    if (spec_path.empty() && !o->resume.empty()) spec_path = spec_from_journal(o->resume);
    if (spec_path.empty()) throw InputError("hpcsens sweep", "needs a spec file (or --resume DIR / --restore DIR)");
    const auto spec = sweep::parse_spec_file(spec_path);
    if (o->apply_point >= 0) {
      if (o->dir.empty()) throw InputError("--apply-point", "needs --dir DIR (where this node's originals are saved)");
      return sweep::apply_point_here(spec, o->apply_point, o->dir);
    }
    if (o->out.empty() && !sub->get_option("-o")->empty()) refuse("-o/--out is empty; name the output directory");
    sweep::SweepOptions opt;
    opt.hpcsens_exe = self_exe();
    opt.stream_exe = (std::filesystem::path(opt.hpcsens_exe).parent_path() / "hpcsens-stream").string();
    opt.run_job = run::run_job;
    if (o->array_task >= 0) {
      if (o->dir.empty()) throw InputError("--array-task", "needs --dir DIR (the sweep's output directory)");
      return sweep::run_array_task(spec, opt, o->array_task, o->dir);
    }
    opt.out_dir = !o->resume.empty() ? o->resume : o->out;
    opt.resume = !o->resume.empty();
    opt.retry_skipped = o->retry_skipped;
    opt.dry_run = o->dry_run;
    opt.run_fit = !o->no_fit;
    return sweep::run_sweep(spec, opt);
  });
}

}  // namespace hpcsens::cli
