#include "sweep/journal/session.h"

#include <csignal>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <random>

#include <fmt/core.h>
#include <fmt/format.h>

#include "common/errors.h"
#include "record/run_record.h"
#include "sweep/spec/sweep_common.h"

namespace fs = std::filesystem;

namespace hpcsens::sweep {
namespace {

safe_file::Dir subdir(const Session& s, const std::string& name) {
  if (::mkdirat(s.fd.fd(), name.c_str(), 0755) != 0 && errno != EEXIST)
    throw InputError(s.fd.child(name), std::string("cannot create: ") + std::strerror(errno));
  safe_file::Dir d;
  if (auto err = safe_file::open_dir(s.fd.child(name), false, &d); !err.empty()) throw InputError(s.fd.child(name), err);
  return d;
}

std::vector<std::string> plan_ids(const Plan& plan) {
  std::vector<std::string> ids;
  for (const auto& r : plan.runs) ids.push_back(r.id);
  return ids;
}

bool journal_exists(const safe_file::Dir& d) {
  std::string why;
  const JournalFile f = journal_file(d, &why);
  if (f == JournalFile::kForeign || f == JournalFile::kUntrusted)
    throw InputError(why + "; not a sweep journal of this user, refusing it (another user may have planted it: remove it)");
  return f == JournalFile::kOurs;
}

std::string new_token() {
  std::random_device rd;
  return fmt::format("{:08x}{:08x}-{}", rd(), rd(), ::getpid());
}

// The records are the results, the journal only says what happened: a run the journal calls
// done whose record is gone or unreadable (deleted, truncated, disk lost) is run again.
void find_lost_records(Session& s, const Plan& plan) {
  for (const auto& r : plan.runs) {
    if (!s.state.done.count(r.id)) continue;
    const std::string path = s.records.child(r.id + ".json");
    std::string why;
    if (!fs::exists(path)) why = "record " + path + " is missing";
    else if (!record_usable(path)) why = "record " + path + " is unreadable";
    if (why.empty()) continue;
    s.state.done.erase(r.id);
    s.state.failed_attempts.erase(r.id);
    s.lost.emplace_back(r.id, why);
  }
}

void check_previous_processes(const Session& s) {
  const std::vector<int> pids = previous_processes(s.state);
  if (pids.empty()) return;
  throw InputError(s.dir, fmt::format("a process of the previous attempt of this sweep still runs (pid {}); wait for "
                                      "it to end or end it, then resume",
                                      fmt::join(pids, ", ")));
}

}  // namespace

Session lock_directory(const std::string& dir, bool create) {
  if (dir.empty()) throw InputError("output", "is empty; name the sweep's output directory");
  Session s;
  s.dir = dir;
  s.abs_dir = fs::absolute(dir).lexically_normal().string();
  if (auto err = safe_file::open_dir(dir, create, &s.fd); !err.empty()) throw InputError(dir, err);
  s.lock = lock_sweep_dir(s.fd);
  return s;
}

int restore_without_journal(const std::string& dir, JournalFile kind, const std::string& why) {
  // Another user's file (or a linked one) says nothing either way: neither read nor evidence.
  if (kind == JournalFile::kUntrusted)
    throw InputError(why + "; refusing to read it: it cannot say what to restore. If another user planted it (a sweep "
                           "refuses such a file before its first change), remove it and run hpcsens sweep --restore " +
                     dir + " again");
  std::vector<std::string> busy;
  const std::string abs_dir = fs::absolute(dir).lexically_normal().string();
  const auto cleared = clear_machine_locks_of(abs_dir, &busy);
  const std::string what = kind == JournalFile::kMissing
                               ? (fs::path(dir) / kJournalName).string() + " does not exist"
                               : why + "; it is not a journal this sweep wrote (another user may have planted it: "
                                       "remove it)";
  for (const auto& b : busy) fmt::print(stderr, "hpcsens sweep: warning: cannot clear {}\n", b);
  if (cleared.empty() && busy.empty()) {
    if (kind == JournalFile::kMissing) throw InputError(dir, "has no sweep journal (" + std::string(kJournalName) + ")");
    throw InputError(why + "; not a journal this sweep wrote, and no machine-wide lock names " + abs_dir +
                     ": nothing to restore; remove it (another user may have planted it)");
  }
  fmt::print(stderr, "hpcsens sweep: {}: the sweep saved no knob values, so it changed none (values are saved "
                     "before the first change)\n", what);
  for (const auto& c : cleared)
    fmt::print(stderr, "hpcsens sweep: cleared the machine-wide lock {} it left; later sweeps may use those knobs\n", c);
  return busy.empty() ? 0 : 1;
}

Session open_session(const std::string& dir, const Plan& plan, bool resume, bool retry_skipped) {
  Session s = lock_directory(dir, !resume);
  const bool has_journal = journal_exists(s.fd);
  if (has_journal && !resume)
    throw InputError(dir, "already holds a sweep journal; use --resume " + dir + " to continue it, or another output directory");
  if (!has_journal && resume) throw InputError(dir, "has no sweep journal to resume");
  s.records = subdir(s, "records");
  subdir(s, "attempts");
  s.attempts = s.fd.child("attempts");
  if (!resume) {
    s.state.token = new_token();
  } else {
    const auto lines = read_journal(s.fd);
    if (auto w = unparsable_warning(lines); !w.empty()) fmt::print(stderr, "hpcsens sweep: warning: {}\n", text::escape_for_message(w));
    s.state = replay_journal(lines);
    s.resumed = true;
    // Resuming would save the knobs' present (the sweep's own) values as the originals.
    if (saved_values_lost(s.state))
      throw InputError(dir + "/" + kJournalName + ":" + std::to_string(s.state.first_unparsable),
                       "the knob values this sweep saved cannot be read (damaged line); resuming would save the "
                       "sweep's own settings as the originals. Run `hpcsens sweep --restore " + dir +
                       "` to see what to do");
    if (s.state.header && s.state.header->value("runs", std::vector<std::string>{}) != plan_ids(plan))
      throw InputError(dir + "/" + kJournalName, "the plan differs from the journalled one (spec changed since the "
                                                 "sweep started); resume with the same spec");
    check_previous_processes(s);
    if (s.state.token.empty()) s.state.token = new_token();
    if (retry_skipped) {
      for (const auto& id : s.state.skipped) s.state.failed_attempts.erase(id);
      s.state.skipped.clear();
    } else if (!s.state.skipped.empty()) {
      fmt::print(stderr, "hpcsens sweep: {} runs were skipped after their retries and stay skipped; "
                         "hpcsens sweep --resume {} --retry-skipped runs them again\n", s.state.skipped.size(), dir);
    }
    find_lost_records(s, plan);
  }
  // Every process the sweep starts inherits this, so a later --resume can tell whether one of
  // them outlived us.
  ::setenv(kTokenVariable, s.state.token.c_str(), 1);
  return s;
}

void journal_start(Session& s, Journal& j, const SweepSpec& spec, const Plan& plan, bool saves_knobs) {
  if (!s.state.header) {
    nlohmann::json pts = nlohmann::json::array();
    for (const auto& p : plan.points) pts.push_back(point_json(p, spec));
    nlohmann::json h = {{"type", "header"}, {"utc", utc_now()}, {"spec", fs::absolute(spec.source).string()},
                        {"emulated", spec.emulation.has_value()}, {"seed", spec.seed},
                        {"randomized", spec.randomized}, {"repetitions", spec.repetitions}, {"points", pts},
                        {"runs", plan_ids(plan)}, {"token", s.state.token}, {"saves_knobs", saves_knobs}};
    j.append(h);
    s.state.header = h;
  } else {
    j.append({{"type", "resumed"}, {"utc", utc_now()}, {"done", s.state.done.size()}, {"pid", ::getpid()}});
  }
  for (const auto& [id, why] : s.lost) {
    j.append({{"type", "lost"}, {"utc", utc_now()}, {"id", id}, {"reason", why}});
    fmt::print(stderr, "hpcsens sweep: {} was journalled as done but its {}; running it again\n", id, why);
  }
}

std::vector<int> processes_of_sweep(const std::string& token) {
  const std::string want = std::string(kTokenVariable) + "=" + token;
  std::vector<int> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const auto name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const int pid = std::atoi(name.c_str());
    if (pid == ::getpid()) continue;
    // The token is in the journal, which others may read: a process of another user carrying it
    // is theirs, not ours, and must not block our --resume (only ours or root's count).
    struct stat st {};
    if (::stat(e.path().c_str(), &st) != 0 || (st.st_uid != ::geteuid() && st.st_uid != 0)) continue;
    std::ifstream in(e.path() / "environ", std::ios::binary);
    std::string var;
    while (std::getline(in, var, '\0'))
      if (var == want) {
        out.push_back(pid);
        break;
      }
  }
  return out;
}

// Jobs and calibrators carry the token in their environment (exec'd with it); run modules are
// forks of the sweep, whose /proc/<pid>/environ is the sweep's own from before it set the token,
// so they are known by their journalled identity.
std::vector<int> previous_processes(const JournalState& st) {
  std::vector<int> pids;
  if (!st.token.empty()) pids = processes_of_sweep(st.token);
  for (const auto& c : st.children)
    if (still_running(c) && c.pid != ::getpid() && std::find(pids.begin(), pids.end(), c.pid) == pids.end())
      pids.push_back(c.pid);
  std::sort(pids.begin(), pids.end());
  return pids;
}

std::vector<int> end_previous_processes(const JournalState& st, double grace_s) {
  const std::vector<int> pids = previous_processes(st);
  if (pids.empty()) return pids;
  for (int p : pids) ::kill(p, SIGTERM);
  const double until = monotonic_s() + grace_s;
  while (monotonic_s() < until && !previous_processes(st).empty()) ::usleep(50000);
  // Found again, not the first list: a pid that ended may have been reused by another process.
  for (int p : previous_processes(st)) ::kill(p, SIGKILL);
  return pids;
}

}  // namespace hpcsens::sweep
