#include "run/run_job.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/core.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <optional>
#include <set>
#include <thread>

#include "common/checked_path.h"
#include "common/errors.h"
#include "common/preload_env.h"
#include "common/run_id.h"
#include "common/safe_file.h"
#include "common/text_escape.h"
#include "counter_agent/protocol.h"
#include "energy/sampler.h"
#include "run/slurm_energy.h"
#include "mpi/launcher.h"
#include "mpi/rank_mpi.h"
#include "run/appfile_job.h"
#include "run/collect_record.h"
#include "run/job_control.h"
#include "run/run_files.h"

namespace hpcsens::run {
namespace fs = std::filesystem;

namespace {

// Every warning is a problem worth seeing, so --quiet (which drops the report table) keeps them.
void warn(RunResult& result, bool /*quiet*/, const std::string& text) {
  result.warnings.push_back(text);
  fmt::print(stderr, "hpcsens: warning: {}\n", text);
}

// Creates the directory (every component checked: common/checked_path.h) and proves we can create
// files in it (root passes access(2) checks even on read-only mounts, so try for real). A directory
// we must not trust, anywhere on the path, is refused, not merely unwritable.
enum class OutDir { kOk, kRefused, kUnwritable };

OutDir prepare_out_dir(const std::string& dir, std::string* why) {
  bool untrusted = false;
  const int fd = safe_file::open_checked_dir(dir, /*create=*/true, why, &untrusted);
  if (fd < 0) return untrusted ? OutDir::kRefused : OutDir::kUnwritable;
  const safe_file::Dir d(fd, dir);
  const std::string probe = ".hpcsens-write-test-" + safe_file::random_hex(8);
  const int pfd = ::openat(d.fd(), probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (pfd < 0) {
    *why = d.child(probe) + ": " + std::strerror(errno);
    return OutDir::kUnwritable;
  }
  ::close(pfd);
  ::unlinkat(d.fd(), probe.c_str(), 0);
  return OutDir::kOk;
}

// Why the preload, or the counter agent it starts (beside it), must not be loaded; "" when fine.
std::string code_problem(const std::string& preload) {
  if (auto problem = safe_file::code_file_problem(preload); !problem.empty()) return problem;
  const std::string agent = fs::path(preload).parent_path() / agent::kAgentRelPath;
  struct stat st {};
  return ::lstat(agent.c_str(), &st) == 0 ? safe_file::code_file_problem(agent) : "";
}

// The job's command as stored in the record: every argument encoded losslessly (a Latin-1 file
// name is not UTF-8 and JSON must be).
std::vector<std::string> encoded(const std::vector<std::string>& argv) {
  std::vector<std::string> out;
  out.reserve(argv.size());
  for (const auto& a : argv) out.push_back(text::encode_outside(a));
  return out;
}

std::string encoded_command_json(const std::vector<std::string>& argv) {
  return nlohmann::json(encoded(argv)).dump();
}

// The launch line with the preload and its settings for every rank, or false (said as a
// warning; the job then runs unmeasured): no preload for the ranks' MPI, app contexts built
// against different MPIs, an appfile that cannot take the settings.
bool plan_measured(const RunRequest& req, mpi::LauncherKind kind, AppfileJob& appfile, const std::string& run_id,
                   const std::string& start_utc, std::string& out_dir, RunResult& result, mpi::LaunchPlan* plan) {
  if (const auto mixed = mpi::mixed_mpi_problem(mpi::programs_mpi(contexts_of(appfile, req.argv))); !mixed.empty()) {
    warn(result, req.quiet, mixed + "; one preload cannot serve both, so the job runs unmeasured");
    result.error = "no record: " + mixed;
    result.error_warned = true;
    return false;
  }
  // The preload is ABI-specific: the one built against the MPI the ranks will load.
  const mpi::RankMpi rank_mpi = mpi::detect_rank_mpi(kind, req.argv);
  const std::string preload = find_preload_library(rank_mpi);
  if (preload.empty()) {
    warn(result, req.quiet,
         fmt::format("{} (for {} jobs) not found in {}; running unmeasured{}",
                     mpi::preload_file_name(rank_mpi), mpi::rank_mpi_name(rank_mpi),
                     std::getenv("HPCSENS_PRELOAD_DIR") ? "$HPCSENS_PRELOAD_DIR" : "../lib/ next to hpcsens",
                     rank_mpi == mpi::RankMpi::kMpich
                         ? " (was hpcsens built without MPICH's headers?)" : ""));
    result.error = "no record: preload library not found";
    return false;
  }
  // Root would run whatever another user put there inside every rank: refused, before the job.
  if (const std::string problem = code_problem(preload); !problem.empty()) {
    result.exit_status = kExitBadInput;
    result.refused = true;
    result.error = "refusing to load the preload: " + problem +
                   (std::getenv("HPCSENS_PRELOAD_DIR") ? " (from $HPCSENS_PRELOAD_DIR)" : "");
    return false;
  }
  std::string ld_preload = preload;
  if (const char* existing = std::getenv(env::kPreload); existing && *existing)
    ld_preload += std::string(":") + existing;
  std::vector<mpi::EnvVar> vars = {
      {env::kOutDir, out_dir},
      {env::kRunId, run_id},
      {env::kEvents, req.events.empty() ? "default" : req.events},
      {env::kCommand, encoded_command_json(req.argv)},
      {env::kLauncher, result.launcher},
      {env::kStartUtc, start_utc},
      {env::kPreload, ld_preload},
  };
  for (const auto& [name, value] : req.rank_env) vars.push_back({name, value});
  // The powercap root the node agents read (a test hook, like for this process's own reader).
  if (const char* root = std::getenv(energy::kRootEnv); root != nullptr && *root != '\0')
    vars.push_back({energy::kRootEnv, root});
  if (req.callsites || req.stack_depth > 1) vars.push_back({env::kCallSites, "1"});
  if (req.stack_depth > 1) vars.push_back({env::kStackDepth, std::to_string(req.stack_depth)});
  *plan = mpi::plan_launch(kind, req.argv, vars);
  if (!appfile.present) return true;
  if (auto err = inject_into_appfile(appfile, *plan, vars, run_id); !err.empty()) {
    warn(result, req.quiet, "cannot put the preload settings into a copy of appfile " + appfile.user_path + " (" +
                                err + "); running the job unmeasured");
    result.error = "no record: the appfile copy could not be written";
    result.error_warned = true;
    return false;
  }
  return true;
}

// Takes the run id's lock in out_dir and notes the files the id already names there (a reused
// HPCSENS_RUN_ID): false, with the run refused (exit 2), when another run holds the id now.
bool claim_run_id(const std::string& out_dir, const std::string& run_id, RunIdLock& lock, std::set<std::string>* earlier,
                  RunResult& result) {
  safe_file::Dir d;
  if (!safe_file::open_dir(out_dir, false, &d).empty()) return true;  // checked just before; the job says the rest
  bool busy = false;
  if (auto err = lock.take(d, run_id, &busy); busy) {
    result.exit_status = kExitBadInput;
    result.refused = true;
    result.error = err;
    return false;
  } else if (!err.empty()) {
    warn(result, false, "cannot lock the run id (" + err + "); going on without: a second run with this id in " +
                            out_dir + " at the same time could not be told apart");
  }
  *earlier = earlier_run_files(d, run_id);
  if (const auto old = find_record_name(d, run_id); !old.empty())
    warn(result, false, "run id '" + run_id + "' already names a record in " + out_dir + " (" + old +
                            "); this run's record gets a name of its own, and that one is never taken for it");
  return true;
}

}  // namespace

std::string make_run_id(long long unix_seconds, int pid, int seq) {
  const std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
  std::string id = fmt::format("{}-{}", buf, pid);
  if (seq > 0) id += fmt::format(".{}", seq);
  return id;
}

std::string utc_iso8601(long long unix_seconds) {
  const std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string explain_no_ranks(int wait_status, bool timed_out, double timeout_s) {
  constexpr const char* kTail = " before any rank reached MPI_Finalize: no record";
  if (timed_out) return fmt::format("the job exceeded --timeout ({} s){}", timeout_s, kTail);
  if (WIFSIGNALED(wait_status))
    return fmt::format("the job was killed by signal {}{}", WTERMSIG(wait_status), kTail);
  if (WIFEXITED(wait_status) && WEXITSTATUS(wait_status) != 0) {
    const int st = WEXITSTATUS(wait_status);
    // Launchers report a rank killed by signal N as 128 + N.
    const std::string sig = st > 128 && st <= 128 + 64
                                ? fmt::format(" (a rank killed by signal {}?)", st - 128) : "";
    return fmt::format("the job exited with status {}{}{}", st, sig, kTail);
  }
  return "no MPI ranks reported (was this an MPI program?)";
}

int run_exit_status(const RunResult& r, bool keep_job_status) {
  if (keep_job_status || !r.record_path.empty()) return r.exit_status;
  return (r.write_failed || r.exit_status == 0) ? kExitNoRecord : r.exit_status;
}

int exit_status_of(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 1;
}

std::string find_preload_library() { return find_preload_library(mpi::RankMpi::kOpenMpi); }

// HPCSENS_PRELOAD_DIR names the directory for unusual layouts (and then only it is searched);
// otherwise ../lib next to the binary, which holds in the build tree and in every install prefix,
// also after the prefix was moved.
std::string find_preload_library(mpi::RankMpi rank_mpi) {
  std::error_code ec;
  fs::path dir;
  if (const char* d = std::getenv("HPCSENS_PRELOAD_DIR"); d != nullptr && *d != '\0') {
    dir = d;
  } else {
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return {};
    dir = exe.parent_path().parent_path() / "lib";
  }
  const fs::path lib = dir / std::string(mpi::preload_file_name(rank_mpi));
  return fs::is_regular_file(lib, ec) ? fs::absolute(lib, ec).string() : std::string();
}

RunResult run_job(const RunRequest& req) {
  static int sequence = 0;
  RunResult result;
  if (req.argv.empty()) {
    result.exit_status = 2;
    result.error = "no command given";
    return result;
  }
  const long long now = static_cast<long long>(std::time(nullptr));
  const std::string run_id = req.run_id.empty() ? make_run_id(now, ::getpid(), sequence++) : req.run_id;
  if (const std::string problem = run_id_problem(run_id); !problem.empty()) {
    result.exit_status = kExitBadInput;
    result.refused = true;
    result.error = "run id '" + text::escape_for_message(run_id) + "' " + problem;
    return result;
  }
  const std::string start_utc = utc_iso8601(now);

  const mpi::LauncherKind kind = mpi::detect_launcher(req.argv[0]);
  result.launcher = std::string(mpi::launcher_name(kind));
  // A bad appfile is bad input: refused before anything is created.
  AppfileJob appfile;
  try {
    appfile = read_appfile_of(kind, req.argv);
  } catch (const InputError& e) {
    result.exit_status = kExitBadInput;
    result.refused = true;
    result.error = e.what();
    return result;
  }

  // Anything that prevents measuring makes us run the job as the user gave it.
  bool measure = kind != mpi::LauncherKind::kUnknown;
  std::string why;
  // Absolute, as the ranks get it: the path checked is the path they will walk.
  std::string out_dir = fs::absolute(req.out_dir.empty() ? "hpcsens-out" : req.out_dir).lexically_normal().string();
  const OutDir out_state = measure ? prepare_out_dir(out_dir, &why) : OutDir::kOk;
  if (out_state == OutDir::kRefused) {
    // Before the job starts: root must not write where another user can plant links.
    result.exit_status = kExitBadInput;
    result.refused = true;
    result.error = fmt::format("output directory refused: {}", why);
    return result;
  }
  if (out_state == OutDir::kUnwritable) {
    warn(result, req.quiet,
         fmt::format("cannot write to output directory '{}' ({}); running the job without a record",
                     out_dir, why));
    result.error = fmt::format("no record: output directory '{}' is not writable ({})", out_dir, why);
    result.error_warned = true;  // the warning above is the one line the user sees
    result.write_failed = true;
    measure = false;
  }
  // One run per id and directory at a time, and what the id already names there is not this run's.
  RunIdLock id_lock;
  std::set<std::string> earlier;
  if (measure && !claim_run_id(out_dir, run_id, id_lock, &earlier, result)) return result;
  mpi::LaunchPlan plan;
  if (measure) measure = plan_measured(req, kind, appfile, run_id, start_utc, out_dir, result, &plan);
  if (result.refused) return result;
  if (!measure) {
    // Unchanged argv, nothing added to the environment (the unknown kind also explains why).
    plan = mpi::plan_launch(kind == mpi::LauncherKind::kUnknown ? kind : mpi::LauncherKind::kSingleton,
                            req.argv, {});
    if (!plan.warnings.empty()) result.error = "no record: " + plan.warnings.front();
  }
  for (const auto& w : plan.warnings) warn(result, req.quiet, w);

  bool took_terminal = false;
  std::string exec_error;
  pid_t pid;
  int raw_status = 0;
  // This node's energy over the job: one reader, in this process, never in the ranks (issue 31).
  std::optional<energy::BackgroundSampler> power;
  if (measure) power.emplace(energy::root_from_env());
  const long job_start_s = static_cast<long>(::time(nullptr));
  {
    SignalForwarding forwarding;
    pid = spawn(plan.argv, plan.launcher_env, &took_terminal, &exec_error);
    if (pid < 0) {
      remove_appfile_copy(appfile);
      result.exit_status = 127;
      result.error = "cannot start the job: " + exec_error;
      return result;
    }
    set_forward_target(pid);
    result.exit_status = wait_for(pid, req.timeout_s, took_terminal, &result.timed_out, &raw_status);
  }
  nlohmann::json energy_node = power ? power->stop() : nlohmann::json();
  if (energy_node.is_object()) energy_node["read_by"] = "hpcsens run";
  if (took_terminal) give_terminal_to(::getpgrp());
  remove_appfile_copy(appfile);
  if (!exec_error.empty()) {  // exec failed: the shell-like 126/127 is already the exit status
    result.error = exec_error;
    return result;
  }
  if (result.timed_out)
    warn(result, req.quiet, fmt::format("the job exceeded its time limit of {} s and was stopped", req.timeout_s));
  if (!measure) return result;
  settle_partial_files(out_dir, run_id, earlier);

  nlohmann::json energy_record = energy::energy_section({energy_node});
  // Slurm's own figure, where the run is inside an allocation (run/slurm_energy.h).
  if (auto slurm = slurm_energy_for_run(job_start_s, static_cast<long>(::time(nullptr))); !slurm.is_null())
    energy_record["slurm"] = std::move(slurm);
  const Collected c = collect_record(out_dir, run_id, {encoded(req.argv), result.launcher, start_utc, earlier,
                                                       {{"energy", std::move(energy_record)}}, req.name_sites},
                                     req.config);
  result.record_path = c.record_path;
  result.complete = c.complete;
  if (!c.error.empty()) result.error = c.error;
  result.write_failed = c.write_failed;
  if (c.no_ranks) {
    // A full or failing disk looks like "no ranks" from here: say what it is, naming the file.
    const std::string write_problem = record_write_problem(out_dir, run_id, earlier);
    result.error = write_problem.empty() ? explain_no_ranks(raw_status, result.timed_out, req.timeout_s)
                                         : write_problem;
    result.write_failed = !write_problem.empty();
  }
  if (c.partial_ranks > 0)
    warn(result, req.quiet,
         fmt::format("incomplete record: {} rank(s) did not reach MPI_Finalize; assembled from their "
                     "partial files{}",
                     c.partial_ranks,
                     c.lost_ranks > 0 ? fmt::format("; {} rank(s) of {} left nothing (killed before they could "
                                                    "write; the record's lost_ranks)",
                                                    c.lost_ranks, c.lost_ranks + c.partial_ranks)
                                      : ""));
  return result;
}

}  // namespace hpcsens::run
