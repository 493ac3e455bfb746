#include "sweep/runner.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include <filesystem>

#include <fmt/core.h>
#include <fmt/format.h>

#include "common/errors.h"
#include "common/text_escape.h"
#include "sweep/output/dry_run.h"
#include "sweep/execute/executor.h"
#include "sweep/execute/machine.h"
#include "sweep/execute/node_refusal.h"
#include "sweep/execute/point_group.h"
#include "sweep/knobs/resctrl_groups.h"
#include "sweep/journal/session.h"
#include "sweep/array/slurm_array.h"
#include "sweep/process/subprocess.h"
#include "sweep/output/summary.h"
#include "sweep/spec/sweep_common.h"

namespace hpcsens::sweep {
namespace {

std::string output_dir(const SweepSpec& spec, const SweepOptions& opt) {
  const std::string dir = opt.out_dir.empty() ? spec.output_dir : opt.out_dir;
  if (dir.empty()) throw InputError(spec.source, "output: is empty; name the sweep's output directory");
  return dir;
}

void announce(const SweepSpec& spec, const KnobSet* knobs = nullptr) {
  // Once, before the first change: how each knob is set here (driver, turbo, skipped policies).
  if (knobs && !spec.emulation && knobs->changes_machine())
    fmt::print(stderr, "hpcsens sweep: knobs: {}\n", text::escape_for_message(knobs->describe()));
  if (spec.emulation)
    fmt::print(stderr, "hpcsens sweep: EMULATED launcher: records are computed from the spec's ground truth, not measured\n");
  else if (!spec.calibration.stream)
    fmt::print(stderr, "hpcsens sweep: warning: calibration.stream is off, records will carry no mem_gbs\n");
}

// A best-effort journal line: after a failure (e.g. a full disk) the sweep must still restore
// and report, whether or not the journal can take one more line.
void journal_try(Journal& journal, const nlohmann::json& line) {
  try {
    journal.append(line);
  } catch (const std::exception& e) {
    fmt::print(stderr, "hpcsens sweep: warning: {}\n", text::escape_for_message(e.what()));
  }
}

void run_fit(const SweepOptions& opt, const Session& s, bool emulated) {
  if (!opt.run_fit || opt.hpcsens_exe.empty() || s.state.done.empty()) return;
  fmt::print("\nhpcsens fit {}/records -o {}/model.json{}\n", s.dir, s.dir, emulated ? "   (EMULATED records)" : "");
  std::fflush(stdout);
  const auto fit = run_child({opt.hpcsens_exe, "fit", s.dir + "/records", "-o", s.dir + "/model.json"}, 0, false, nullptr);
  if (fit.exit_status != 0)
    fmt::print(stderr, "hpcsens sweep: warning: hpcsens fit exited with status {}; the records are in {}/records\n",
               fit.exit_status, s.dir);
}

// How the sweep ended: stopped by a signal, failed, or through its plan.
int finish(const SweepSpec& spec, const Plan& plan, const SweepOptions& opt, Session& s, Journal& journal,
           const std::string& failure, std::exception_ptr input_error, bool restored) {
  if (const int sig = stop_signal()) {
    journal_try(journal, {{"type", "stopped"}, {"utc", utc_now()}, {"signal", sig}});
    fmt::print(stderr, "hpcsens sweep: stopped by signal {}; {}; continue with: hpcsens sweep --resume {}\n", sig,
               restored ? "knobs restored" : "KNOBS NOT ALL RESTORED (see above)", s.dir);
    return 128 + sig;
  }
  if (!failure.empty()) {
    journal_try(journal, {{"type", "error"}, {"utc", utc_now()}, {"error", failure}});
    if (input_error) std::rethrow_exception(input_error);
    fmt::print(stderr, "hpcsens sweep: error: {}\n", text::escape_for_message(failure));
    return 1;
  }
  journal_try(journal, {{"type", "finished"}, {"utc", utc_now()}, {"done", s.state.done.size()},
                        {"skipped", s.state.skipped.size()}});
  const std::string csv_error = write_summary(spec, plan, s);
  if (!csv_error.empty()) fmt::print(stderr, "hpcsens sweep: error: {}\n", text::escape_for_message(csv_error));
  run_fit(opt, s, spec.emulation.has_value());
  return s.state.skipped.empty() && csv_error.empty() && restored ? 0 : 1;
}

// A slurm-array sweep changes nothing on this machine: each task's srun sets its own clock
// (--cpu-freq), which Slurm restores when the step ends.
int run_array(const SweepSpec& spec, const Plan& plan, const SweepOptions& opt, Session& session) {
  Journal journal(session.fd);
  install_stop_handlers();
  announce(spec);
  std::string failure;
  std::exception_ptr input_error;
  try {
    journal_start(session, journal, spec, plan, false);
    run_array_sweep(spec, plan, opt, session, journal);
  } catch (const InputError& e) {
    failure = e.what();
    input_error = std::current_exception();
  } catch (const std::exception& e) {
    failure = e.what();
  }
  return finish(spec, plan, opt, session, journal, failure, input_error, true);
}

}  // namespace

int run_sweep(const SweepSpec& spec, const SweepOptions& opt) {
  const std::string dir = output_dir(spec, opt);
  if (!spec.emulation && !opt.dry_run && !opt.run_job)
    throw std::runtime_error("real runs need the `hpcsens run` module, which is not available in this build");

  // Probing reads sysfs only; nothing is written before the originals are in the journal.
  const KnobSet knobs(spec, machine_sysfs());
  const Plan plan = make_plan(spec, knobs.cpu_values());
  if (opt.dry_run) {
    if (!print_plan(spec, knobs, plan, opt, dir)) {
      fmt::print(stderr, "hpcsens sweep: the dry run found knob errors (the \"knob error\" lines above): the sweep "
                         "would fail at those points; fix the spec or the machine first\n");
      return kExitBadInput;
    }
    return 0;
  }

  Session session = open_session(dir, plan, opt.resume, opt.retry_skipped);
  if (spec.execution == Execution::kSlurmArray) return run_array(spec, plan, opt, session);
  Machine machine(spec, knobs, opt, session);
  Journal journal(session.fd);
  install_stop_handlers();
  announce(spec, &knobs);

  std::string failure;
  std::exception_ptr input_error;  // bad input found mid-sweep: exit 2, after restoring
  try {
    journal_start(session, journal, spec, plan, knobs.changes_machine() && !spec.emulation);
    machine.save_originals(journal);
    const auto executor = make_executor(spec, knobs, opt, session, &journal);
    run_pending(spec, plan, session, journal, machine, *executor);
  } catch (const InputError& e) {
    failure = e.what();
    input_error = std::current_exception();
  } catch (const std::exception& e) {
    failure = e.what();
  }
  const bool restored = machine.restore(journal);
  return finish(spec, plan, opt, session, journal, failure, input_error, restored);
}

namespace {

// The journal is damaged where the saved values should be: say so, and what root can do, rather
// than "nothing to restore" (a later sweep would then save the changed values as the originals).
int refuse_lost_values(const std::string& dir, const JournalState& st) {
  fmt::print(stderr,
             "hpcsens sweep: {}/{}: the knob values this sweep saved before changing them cannot be read "
             "({} damaged line(s), the first at line {}){}; hpcsens cannot put the knobs back. Set each knob the "
             "sweep's spec names back to its default by hand (or reboot the node); until then a sweep on these "
             "knobs is refused and names the lock file to remove once they are right\n",
             text::escape_for_message(dir), kJournalName, st.unparsable, st.first_unparsable,
             st.knobs_dirty ? ", and it shows knobs were changed" : "");
  return 1;
}

// Restores what one journal saved. Only the sweep's own directory takes the machine lock: a
// node's part (nodes/<host>/) runs under the main sweep or restore, which holds it already.
int restore_dir(const std::string& dir, bool machine_wide) {
  Session s = lock_directory(dir, false);
  // No journal of its own (it died before writing one, or another user planted a FIFO or a link
  // under its name): it changed nothing, and only the machine-wide lock it may have left is cleared.
  std::string why;
  if (const auto kind = journal_file(s.fd, &why); kind != JournalFile::kOurs && machine_wide)
    return restore_without_journal(dir, kind, why);
  const auto lines = read_journal(s.fd);
  if (auto w = unparsable_warning(lines); !w.empty()) fmt::print(stderr, "hpcsens sweep: warning: {}\n", text::escape_for_message(w));
  s.state = replay_journal(lines);
  // The directory lock is ours, so the sweep that started these is dead: its job must not run on.
  // Not for a node's part: its journal carries the token of a sweep that may be the one
  // restoring it now (a per-node restore task and its controller have that token).
  if (const auto ended = machine_wide ? end_previous_processes(s.state, 10) : std::vector<int>{}; !ended.empty())
    fmt::print(stderr, "hpcsens sweep: ended {} process(es) the stopped sweep left running (pid {})\n", ended.size(),
               fmt::join(ended, ", "));
  if (saved_values_lost(s.state)) return refuse_lost_values(dir, s.state);
  if (!s.state.has_originals) {
    fmt::print(stderr, "hpcsens sweep: {} saved no knob values; nothing to restore\n", text::escape_for_message(dir));
    return 0;
  }
  FileLock machine_lock;
  if (machine_wide && (!s.state.originals.empty() || !s.state.restore_actions.empty() || s.state.per_node_nnodes > 0 ||
                       !s.state.resctrl_groups.empty()))
    machine_lock = lock_machine(s.state.sysfs_root, {s.abs_dir, s.state.token});
  Journal journal(s.fd);
  const auto r = restore_journalled(s.state, journal, s.abs_dir);
  for (const auto& f : r.restored) fmt::print(stderr, "restored {} = {}\n", text::escape_for_message(f.path), text::escape_for_message(f.value));
  for (const auto& k : r.skipped) fmt::print(stderr, "skipped {}: {}\n", text::escape_for_message(k.path), text::escape_for_message(k.reason));
  print_restore(r);
  if (r.errors.empty() && machine_lock.held()) release_machine(machine_lock);
  return r.errors.empty() ? 0 : 1;
}

}  // namespace

int restore_from_journal(const std::string& dir) {
  // A multi-node sweep keeps each node's originals under nodes/<host>/.
  char host[256] = "localhost";
  ::gethostname(host, sizeof host - 1);
  const std::string node_dir = dir + "/nodes/" + host;
  std::error_code ec;
  const bool has_node_journal = std::filesystem::exists(node_dir + "/" + kJournalName, ec);
  // One node's task of the per-node restore restores that node only: the main journal's restore
  // command is the srun that started this task, so running it again would recurse.
  if (const char* v = std::getenv(kNodeTaskEnv); v != nullptr && *v != '\0') {
    ::unsetenv(kNodeTaskEnv);
    return has_node_journal ? restore_dir(node_dir, false) : 0;
  }
  const int node_status = has_node_journal ? restore_dir(node_dir, false) : 0;
  // lstat: a planted FIFO or dangling link under the journal's name goes to restore_dir, which
  // says what it is and clears a machine-wide lock the sweep left.
  // None at all: nothing to lock or read here, only a machine-wide lock the sweep left to clear.
  struct stat st {};
  if (::lstat((dir + "/" + kJournalName).c_str(), &st) != 0)
    return std::filesystem::exists(node_dir, ec) ? node_status : restore_without_journal(dir, JournalFile::kMissing, "");
  return restore_dir(dir, true) == 0 && node_status == 0 ? 0 : 1;
}

int apply_point_here(const SweepSpec& spec, int point, const std::string& dir) {
  SysfsIo& io = machine_sysfs();
  KnobSet knobs(spec, io);
  const Plan plan = make_plan(spec, knobs.cpu_values());
  if (point < 0 || point >= int(plan.points.size()))
    throw InputError("--apply-point", "no point " + std::to_string(point) + " (the plan has " +
                                          std::to_string(plan.points.size()) + ")");
  char host[256] = "localhost";
  ::gethostname(host, sizeof host - 1);
  // This node's knobs, before anything is created or changed: another sweep's (live, or left
  // changed) refuse us; our controller's lock on its own node lets us on. The controller's
  // environment (srun --export=ALL) carries its token.
  const char* token = std::getenv(kTokenVariable);
  FileLock node_lock;
  try {
    node_lock = lock_node_for_sweep(spec.sysfs_root, {std::filesystem::absolute(dir).lexically_normal().string(), token ? token : ""});
  } catch (const InputError& e) {  // the refusal (exit 2), which the controller names
    note_node_refusal(dir, host, e.what());  // for the controller to print (node_refusal.h)
    throw;
  }
  clear_node_refusal(dir, host);
  // Each node locks only its own directory: the nodes of one allocation apply at the same time.
  Session s = lock_directory(dir + "/nodes/" + host, true);
  Journal journal(s.fd);
  s.state = replay_journal(read_journal(s.fd));
  if (!s.state.has_originals) {
    nlohmann::json files = nlohmann::json::array();
    for (const auto& f : knobs.save(io)) files.push_back({{"path", f.path}, {"value", f.value}});
    // The token names this node's resctrl groups: a restore here removes only those.
    journal.append({{"type", "originals"}, {"utc", utc_now()}, {"root", spec.sysfs_root}, {"files", files},
                    {"actions", knobs.restore_actions()}, {"token", token ? token : ""}});
    s.state.token = token ? token : "";
  }
  const auto& p = plan.points[std::size_t(point)];
  journal.append({{"type", "apply"}, {"utc", utc_now()}, {"point", point_json(p, spec)}});
  leave_point_groups(journal, s.state);
  for (const auto& c : knobs.apply(io, p)) {
    const auto r = run_child(c, 60, false, nullptr);
    if (r.exit_status != 0) throw std::runtime_error("knob command failed: " + shell_join(c));
  }
  // The launch agent (hpcsens resctrl-join) puts this node's daemon, and so its ranks, in it.
  if (const auto schemata = knobs.resctrl_schemata(p))
    enter_point_group(journal, s.state, knobs.resctrl_root(), p.index, *schemata, [&](long kernel_max) {
      if (auto why = mb_values_over_max(spec.mem_bw, kernel_max, knobs.set_values(p).value("mem_bw_unit", "")); !why.empty())
        throw InputError(spec_line(spec, spec.mem_bw_line), why);
    });
  return 0;
}

}  // namespace hpcsens::sweep
