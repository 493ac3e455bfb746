#include "sweep/execute/machine.h"

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include <fmt/core.h>

#include "common/errors.h"
#include "common/text_escape.h"
#include "common/text_terminal.h"
#include "sweep/execute/node_refusal.h"
#include "sweep/execute/point_group.h"
#include "sweep/knobs/resctrl_groups.h"
#include "sweep/process/subprocess.h"
#include "sweep/spec/sweep_common.h"

namespace hpcsens::sweep {
namespace {

std::string self_exe() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("hpcsens") : p.string();
}

void run_commands(const std::vector<Argv>& cmds) {
  for (const auto& c : cmds) {
    const auto r = run_child(c, 60, false, nullptr);
    if (r.exit_status != 0)
      throw std::runtime_error("knob command failed (" +
                               (r.error.empty() ? "exit " + std::to_string(r.exit_status) : r.error) +
                               "): " + shell_join(c));
  }
}

// The per-node srun: a node task exits 2 when another sweep holds that node's knobs (it says so
// on stderr and in the sweep directory); that stops the sweep, which then restores what the other
// nodes applied.
void apply_on_every_node(const Argv& cmd, int point, const std::string& sweep_dir) {
  const auto r = run_child(cmd, 60, false, nullptr);
  if (r.exit_status == kExitBadInput) {
    std::string why;
    for (const auto& n : node_refusals(sweep_dir)) why += (why.empty() ? "" : "; ") + n;
    if (why.empty()) why = "its reason was not saved (see its message above, if the launcher passed it on)";
    throw InputError("point " + std::to_string(point), "a node refused to apply it: " + why + " (node tasks: " +
                                                           shell_join(cmd) + ")");
  }
  if (r.exit_status != 0)
    throw std::runtime_error("knob command failed (" +
                             (r.error.empty() ? "exit " + std::to_string(r.exit_status) : r.error) + "): " + shell_join(cmd));
}

void manual_step(const MemoryConfig& m) {
  fmt::print(stderr, "\nhpcsens sweep: manual step for memory configuration '{}': {}\n"
                     "press Enter when done (end of input stops the sweep)\n", text::escape_for_message(m.name),
             text::escape_for_terminal(m.manual));
  std::string line;
  if (!std::getline(std::cin, line)) throw std::runtime_error("manual step for '" + m.name + "' was not confirmed");
}

// Every group the journal names that is still there: only names of this sweep's own pattern.
void remove_journalled_groups(const JournalState& st, Journal& journal, RestoreResult& r) {
  for (const auto& g : st.resctrl_groups) {
    if (auto why = resctrl_group_problem(st.resctrl_root, g, st.token); !why.empty()) {
      r.errors.push_back("not removing resctrl group " + g + ": " + why);
      continue;
    }
    bool was_there = false;
    if (auto err = remove_resctrl_group(machine_resctrl(), st.resctrl_root, g, &was_there); !err.empty()) {
      r.errors.push_back(err);
      continue;
    }
    if (was_there)
      fmt::print(stderr, "hpcsens sweep: removed resctrl group {}/{} (its tasks went back to the default group)\n",
                 text::escape_for_message(st.resctrl_root), text::escape_for_message(g));
    try {
      journal.append({{"type", "resctrl_removed"}, {"utc", utc_now()}, {"group", g}});
    } catch (const std::exception& e) {
      fmt::print(stderr, "hpcsens sweep: warning: {}\n", text::escape_for_message(e.what()));
    }
  }
}

}  // namespace

Machine::Machine(const SweepSpec& spec, const KnobSet& knobs, const SweepOptions& opt, Session& session)
    : spec_(spec), knobs_(knobs), opt_(opt), session_(session), emulated_(spec.emulation.has_value()),
      nnodes_(slurm_nnodes()), resctrl_root_(knobs.resctrl_root()) {
  if (knobs_.changes_machine() && !emulated_) lock_ = lock_machine(spec.sysfs_root, {session.abs_dir, session.state.token});
}

void Machine::save_originals(Journal& journal) {
  auto& st = session_.state;
  if (!knobs_.changes_machine() || emulated_ || st.has_originals) return;
  nlohmann::json line = {{"type", "originals"}, {"utc", utc_now()}, {"root", spec_.sysfs_root}};
  nlohmann::json files = nlohmann::json::array();
  if (nnodes_ > 1) {
    // Each node saves its own originals under nodes/<host>/ when it first applies a point.
    line["nnodes"] = nnodes_;
    st.per_node_nnodes = nnodes_;
  } else {
    st.originals = knobs_.save(io_);
    st.restore_actions = knobs_.restore_actions();
    for (const auto& f : st.originals) files.push_back({{"path", f.path}, {"value", f.value}});
  }
  line["files"] = files;
  line["actions"] = st.restore_actions;
  journal.append(line);
  st.has_originals = true;
  st.sysfs_root = spec_.sysfs_root;
}

void Machine::enter(const Point& p, Journal& journal) {
  if (p.index == current_) return;
  const int memory = p.memory ? *p.memory : -1;
  if (memory >= 0 && memory != current_memory_ && !emulated_ && !spec_.memory[std::size_t(memory)].manual.empty())
    manual_step(spec_.memory[std::size_t(memory)]);
  journal.append({{"type", "apply"}, {"utc", utc_now()}, {"point", point_json(p, spec_)}});
  session_.state.knobs_dirty = true;
  if (nnodes_ > 1 && knobs_.changes_machine() && !emulated_) {
    set_job_tasks_file("");
    apply_on_every_node(per_node_apply_command(nnodes_, opt_.hpcsens_exe, std::filesystem::absolute(spec_.source).string(),
                                               p.index, session_.abs_dir), p.index, session_.abs_dir);
    join_local_group(p);
  } else {
    leave_group(journal);
    apply_or_undo(p);
    enter_group(p, journal);
  }
  current_ = p.index;
  current_memory_ = memory;
}

// A point that fails half-way (a write refused, a clamp found on read-back) puts back what it
// changed before the error goes on: the next attempt, or the next point, starts from the
// originals, and nothing of the failed point is left if the sweep stops here.
void Machine::apply_or_undo(const Point& p) {
  try {
    run_commands(knobs_.apply(io_, p));
  } catch (const std::exception&) {
    const auto r = restore_files(io_, session_.state.originals);
    for (const auto& e : r.errors)
      fmt::print(stderr, "hpcsens sweep: RESTORE FAILED: {}\n", text::escape_for_message(e));
    throw;
  }
}

// The point's group (point_group.h). Only a one-node sweep makes it here; on several nodes each
// node's `--apply-point` makes its own, and the launcher started here joins this node's one.
void Machine::enter_group(const Point& p, Journal& journal) {
  const auto schemata = resctrl_root_.empty() ? std::nullopt : knobs_.resctrl_schemata(p);
  if (!schemata) return;
  const auto check_max = [&](long kernel_max) {
    if (auto why = mb_values_over_max(spec_.mem_bw, kernel_max, knobs_.set_values(p).value("mem_bw_unit", "")); !why.empty())
      throw InputError(spec_line(spec_, spec_.mem_bw_line), why);
  };
  set_job_tasks_file(enter_point_group(journal, session_.state, resctrl_root_, p.index, *schemata, check_max));
}

void Machine::leave_group(Journal& journal) {
  set_job_tasks_file("");
  leave_point_groups(journal, session_.state);
}

// A multi-node point: this node's group, when this node is one of the allocation's (a
// controller on a login node has none, and its hosts are checked after the run).
void Machine::join_local_group(const Point& p) {
  set_job_tasks_file("");
  if (resctrl_root_.empty() || !knobs_.resctrl_schemata(p)) return;
  const std::string group = resctrl_root_ + "/" + resctrl_group_name(session_.state.token);
  struct stat sb {};
  if (::lstat(group.c_str(), &sb) == 0 && S_ISDIR(sb.st_mode)) set_job_tasks_file(group + "/tasks");
}

bool Machine::restore(Journal& journal) {
  set_job_tasks_file("");  // the groups go below with every journalled one
  const auto& st = session_.state;
  const bool saved = !st.originals.empty() || !st.restore_actions.empty() || st.per_node_nnodes > 0 ||
                     !st.unrun_commands.empty() || !st.resctrl_groups.empty();
  if (!st.knobs_dirty || !saved) {
    if (lock_.held()) release_machine(lock_);
    return true;
  }
  const auto r = restore_journalled(st, journal, session_.abs_dir);
  print_restore(r);
  if (r.errors.empty()) {
    session_.state.knobs_dirty = false;
    session_.state.resctrl_groups.clear();
    if (lock_.held()) release_machine(lock_);
  }
  return r.errors.empty();
}

RestoreResult restore_journalled(const JournalState& st, Journal& journal, const std::string& abs_dir) {
  std::vector<FileWrite> files;
  RestoreResult refused;
  for (const auto& f : st.originals) {
    if (auto why = restore_target_problem(f, st.sysfs_root); !why.empty())
      refused.errors.push_back("not restoring " + f.path + ": " + why);
    else
      files.push_back(f);
  }
  auto r = restore_files(machine_sysfs(), files);
  r.errors.insert(r.errors.begin(), refused.errors.begin(), refused.errors.end());
  std::vector<Argv> cmds;
  for (const auto& a : st.restore_actions) {
    if (auto argv = restore_action_argv(a)) cmds.push_back(*argv);
    else r.errors.push_back("unknown restore action '" + a + "' in the journal; not run");
  }
  if (st.per_node_nnodes > 0) cmds.push_back(per_node_restore_command(st.per_node_nnodes, self_exe(), abs_dir));
  for (const auto& c : cmds) {
    const auto res = run_child(c, 60, false, nullptr);
    if (res.exit_status != 0) r.errors.push_back("restore command failed: " + shell_join(c));
  }
  remove_journalled_groups(st, journal, r);
  for (const auto& c : st.unrun_commands)
    r.errors.push_back("the journal lists a command (older hpcsens); hpcsens runs nothing read from a file: "
                       "run it yourself if you trust it: " + shell_join(c));
  nlohmann::json skipped = nlohmann::json::array();
  for (const auto& k : r.skipped) skipped.push_back({{"path", k.path}, {"reason", k.reason}});
  try {
    journal.append({{"type", "restored"}, {"utc", utc_now()}, {"files", r.restored.size()},
                    {"skipped", skipped}, {"errors", r.errors}});
  } catch (const std::exception& e) {
    // The knobs are back; only the note is missing. The journal still says "changed", so the
    // machine stays marked until a --restore can write it: safe, and said.
    fmt::print(stderr, "hpcsens sweep: warning: {} (the knobs are restored, but the journal cannot say so; "
                       "run hpcsens sweep --restore {} when there is space)\n", text::escape_for_message(e.what()),
               text::escape_for_message(abs_dir));
  }
  return r;
}

void print_restore(const RestoreResult& r) {
  fmt::print(stderr, "hpcsens sweep: {}\n", text::escape_for_message(restore_summary(r)));
  for (const auto& e : r.errors) fmt::print(stderr, "hpcsens sweep: RESTORE FAILED: {}\n", text::escape_for_message(e));
}

}  // namespace hpcsens::sweep
