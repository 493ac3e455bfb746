// The controller of a slurm-array sweep: submits the pending runs as one job array (or, after a
// restart, re-attaches to the array its journal names), then journals each record as it
// arrives, until every run has its record or its outcome, or the array is gone from the queue.
// Runs whose task left the queue with neither (cancelled, preempted, node lost, time limit) count
// a failed attempt and go into the next submission, until their retries are spent.
// Journal lines: array_submitting (before sbatch), array_submitted (its job id), and one "run"
// line per arrival, the same line a local sweep writes, so --resume and the summary just work.
// Whether an array is still queued is asked by its job name, so a job id Slurm no longer knows
// reads as gone; when Slurm does not answer at all nothing is resubmitted (that could start a
// run twice): the controller waits, then stops with the array left running.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <thread>

#include <fmt/core.h>

#include "common/text_escape.h"
#include "common/errors.h"
#include "common/private_dir.h"
#include "record/run_record.h"
#include "sweep/array/slurm_array.h"
#include "sweep/process/stop.h"
#include "sweep/process/subprocess.h"
#include "sweep/spec/sweep_common.h"

namespace hpcsens::sweep {
namespace {

struct Submission {
  int number = 0;
  std::string job_id;  // empty: sbatch may or may not have run (killed in between)
  std::vector<std::string> ids;
};

std::vector<Submission> journalled_submissions(const Session& s) {
  std::vector<Submission> subs;
  for (const auto& [no, j] : read_journal(s.fd).lines) {
    const std::string type = j.value("type", "");
    if (type != "array_submitting" && type != "array_submitted") continue;
    const int n = j.value("submission", -1);
    if (n != int(subs.size()) && !(type == "array_submitted" && n == int(subs.size()) - 1))
      throw InputError(s.fd.child(kJournalName) + ":" + std::to_string(no), "submission: out of sequence");
    if (type == "array_submitting") subs.push_back({n, "", j.value("ids", std::vector<std::string>{})});
    else subs.back().job_id = j.value("job_id", "");
  }
  return subs;
}

std::string job_name(const Session& s, int number) { return "hpcsens-" + s.state.token.substr(0, 12) + "-" + std::to_string(number); }

// Runs `argv` without the sweep's token in the environment: sbatch copies the environment into
// the tasks, and a task carrying the token would look like a live controller to --resume.
ChildResult run_slurm(const std::vector<std::string>& argv) {
  const char* t = std::getenv(kTokenVariable);
  const std::string token = t ? t : "";
  ::unsetenv(kTokenVariable);
  auto r = run_child(argv, 60, true, nullptr);
  if (!token.empty()) ::setenv(kTokenVariable, token.c_str(), 1);
  return r;
}

// The array's job id from sbatch --parsable ("123" or "123;cluster").
std::string parse_job_id(const std::string& out) {
  std::string id = out.substr(0, out.find_first_of(";\n"));
  if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos)
    throw std::runtime_error("sbatch printed no job id: '" + out + "'");
  return id;
}

// How long Slurm may stay silent (squeue failing) before the controller stops waiting.
constexpr int kSlurmSilenceS = 60;

class Controller {
 public:
  Controller(const SweepSpec& spec, const Plan& plan, const SweepOptions& opt, Session& s, Journal& j)
      : spec_(spec), plan_(plan), opt_(opt), s_(s), journal_(j) {
    if (auto err = safe_file::open_dir(s.abs_dir + "/" + kArrayDir, true, &adir_); !err.empty())
      throw std::runtime_error(err);
  }

  void run() {
    subs_ = journalled_submissions(s_);
    if (!subs_.empty() && subs_.back().job_id.empty()) find_lost_submission(subs_.back());
    for (const auto& sub : subs_) collect(sub);
    bool attached = !subs_.empty() && !subs_.back().job_id.empty() && queued(subs_.back());
    if (attached)
      fmt::print(stderr, "hpcsens sweep: re-attached to array job {} (submission {})\n", subs_.back().job_id,
                 subs_.back().number);
    while (!stop_signal()) {
      if (!attached) {
        const auto ids = to_submit();
        if (ids.empty()) return;
        subs_.push_back(submit(int(subs_.size()), ids));
      }
      attached = false;
      watch(subs_.back());
    }
  }

 private:
  // The runs still without record or outcome whose retries are not spent; the others skipped.
  std::vector<std::string> to_submit() {
    std::vector<std::string> ids;
    for (const auto& r : plan_.runs) {
      if (s_.state.done.count(r.id) || s_.state.skipped.count(r.id)) continue;
      if (s_.state.failed_attempts[r.id] > spec_.retries)
        skip(r.id, "its task left the queue without a record " + std::to_string(s_.state.failed_attempts[r.id]) +
                       " times (see " + adir_.path() + "/task-*.out)",
             s_.state.failed_attempts[r.id]);
      else
        ids.push_back(r.id);
    }
    return ids;
  }
  const PlannedRun& run_of(const std::string& id) const {
    for (const auto& r : plan_.runs)
      if (r.id == id) return r;
    throw std::runtime_error("the journal names run " + id + ", which is not in the plan");
  }

  // The array job ids Slurm has queued (pending, running, completing) under submission's name.
  // Retries while squeue fails; throws when Slurm stays silent.
  std::vector<std::string> queued_ids(const Submission& sub) {
    const std::string name = job_name(s_, sub.number);
    for (int waited = 0;; ++waited) {
      // Our own jobs only: another user could queue a job under our (visible) name.
      const auto r = run_slurm({"squeue", "-h", "--user=" + std::to_string(::getuid()), "--name=" + name, "-o", "%F"});
      if (r.exit_status == 0) {
        std::vector<std::string> ids;
        for (std::size_t at = 0; at < r.out.size();) {
          const auto end = std::min(r.out.find('\n', at), r.out.size());
          if (end > at) ids.push_back(r.out.substr(at, end - at));
          at = end + 1;
        }
        return ids;
      }
      if (waited >= kSlurmSilenceS || stop_signal())
        throw std::runtime_error("squeue has failed for " + std::to_string(waited) + " s, so whether submission " +
                                 std::to_string(sub.number) + " (" + name + ") is queued is unknown; nothing was "
                                 "resubmitted; hpcsens sweep --resume " + s_.dir + " asks again");
      std::this_thread::sleep_for(std::chrono::seconds(1));
    }
  }
  bool queued(const Submission& sub) {
    const auto ids = queued_ids(sub);
    return std::find(ids.begin(), ids.end(), sub.job_id) != ids.end();
  }

  // Killed between array_submitting and array_submitted: the job name says whether sbatch ran
  // and the array is still queued. Not queued: either sbatch never ran or the array is done;
  // either way its records are collected and the runs without one are submitted again.
  void find_lost_submission(Submission& sub) {
    const auto ids = queued_ids(sub);
    if (ids.empty() || ids.front().find_first_not_of("0123456789") != std::string::npos) return;
    sub.job_id = ids.front();
    journal_.append({{"type", "array_submitted"}, {"submission", sub.number}, {"job_id", sub.job_id},
                     {"utc", utc_now()}, {"found_by_name", true}});
  }

  Submission submit(int number, const std::vector<std::string>& ids) {
    ArrayPlan ap{number, {}};
    for (const auto& id : ids) ap.tasks.push_back(run_of(id));
    const std::string plan_name = array_plan_name(number), script = "task-" + std::to_string(number) + ".sh";
    const std::string spec_path = std::filesystem::absolute(spec_.source).string();
    if (auto err = safe_file::write_atomic(adir_, plan_name, array_plan_json(ap).dump(1) + "\n"); !err.empty())
      throw std::runtime_error("cannot write " + adir_.child(plan_name) + ": " + err);
    // sbatch reads the script by name (and keeps its own copy): from a directory only we can write.
    safe_file::Dir priv;
    if (auto err = safe_file::make_private_dir("sbatch", &priv); !err.empty()) throw std::runtime_error(err);
    if (auto err = safe_file::write_atomic(priv, script, array_batch_script(opt_.hpcsens_exe, spec_path, number, s_.abs_dir), 0700);
        !err.empty()) {
      safe_file::remove_private_dir(priv, {});
      throw std::runtime_error("cannot write " + priv.child(script) + ": " + err);
    }
    journal_.append({{"type", "array_submitting"}, {"submission", number}, {"ids", ids}, {"utc", utc_now()}});
    const auto r = run_slurm(array_sbatch_argv(
        spec_, {job_name(s_, number), ids.size(), adir_.child("task-" + std::to_string(number) + "-%a.out"),
                s_.abs_dir, priv.child(script)}));
    safe_file::remove_private_dir(priv, {script});
    if (r.exit_status != 0) throw std::runtime_error("sbatch exited with status " + std::to_string(r.exit_status) + (r.error.empty() ? "" : ": " + r.error));
    Submission sub{number, parse_job_id(r.out), ids};
    journal_.append({{"type", "array_submitted"}, {"submission", number}, {"job_id", sub.job_id}, {"tasks", ids.size()},
                     {"max_running", spec_.array_max_running}, {"utc", utc_now()}});
    fmt::print(stderr, "hpcsens sweep: submitted array job {} ({} tasks, at most {} at a time)\n", sub.job_id,
               ids.size(), spec_.array_max_running);
    return sub;
  }

  // Journals the records that arrived and the runs whose task gave up; returns how many remain.
  int collect(const Submission& sub) {
    int remaining = 0;
    for (std::size_t t = 0; t < sub.ids.size(); ++t) {
      const std::string& id = sub.ids[t];
      if (s_.state.done.count(id) || s_.state.skipped.count(id)) continue;
      const std::string path = s_.records.child(id + ".json");
      if (record_usable(path)) arrived(sub, int(t), id, path);
      else if (!task_gave_up(sub, int(t), id)) ++remaining;
    }
    return remaining;
  }
  void arrived(const Submission& sub, int task, const std::string& id, const std::string& path) {
    const auto rec = record::load_run_record(path);
    journal_.append({{"type", "run"}, {"id", id}, {"status", "ok"}, {"record", path}, {"utc", utc_now()},
                     {"node", rec.config.value("node", "")}, {"array_job", sub.job_id}, {"array_task", task}});
    s_.state.done.insert(id);
    fmt::print(stderr, "hpcsens sweep: {} arrived from {}\n", id,
               text::escape_for_message(rec.config.value("node", "?")));
  }
  bool task_gave_up(const Submission& sub, int task, const std::string& id) {
    const std::string name = array_outcome_name(sub.number, task);
    std::error_code ec;
    if (!std::filesystem::exists(adir_.child(name), ec)) return false;
    nlohmann::json o;
    try {
      o = nlohmann::json::parse(safe_file::read_own_file(adir_.child(name), 1u << 20));
    } catch (const std::exception&) {
      return false;  // written atomically, so a torn file is someone else's: wait for the record
    }
    if (o.value("status", "") != "failed" || o.value("id", "") != id) return false;
    const int attempts = o.value("attempts", 0);
    const std::string why = "task " + std::to_string(task) + " of array job " + sub.job_id + " on " +
                            o.value("node", "?") + ", " + std::to_string(attempts) + " attempt(s): " +
                            o.value("error", "failed");
    journal_.append({{"type", "run"}, {"id", id}, {"status", "failed"}, {"error", why}, {"attempts", attempts},
                     {"node", o.value("node", "")}, {"array_job", sub.job_id}, {"array_task", task}, {"utc", utc_now()}});
    skip(id, why, attempts);
    return true;
  }
  void skip(const std::string& id, const std::string& why, int attempts) {
    journal_.append({{"type", "skipped"}, {"id", id}, {"attempts", attempts}, {"reason", why}, {"utc", utc_now()}});
    s_.state.skipped.insert(id);
    fmt::print(stderr, "hpcsens sweep: {} skipped: {}\n", id, text::escape_for_message(why));
  }
  // A run whose task left the queue with neither record nor outcome: one failed attempt.
  void lost(const Submission& sub, const std::string& id) {
    const std::string why = "array job " + sub.job_id + " left the queue without its record or outcome";
    journal_.append({{"type", "run"}, {"id", id}, {"status", "failed"}, {"lost", true}, {"error", why},
                     {"array_job", sub.job_id}, {"utc", utc_now()}});
    ++s_.state.failed_attempts[id];
    fmt::print(stderr, "hpcsens sweep: {}: {}\n", id, text::escape_for_message(why));
  }

  void watch(const Submission& sub) {
    while (!stop_signal()) {
      if (collect(sub) == 0) return;
      if (!queued(sub)) {
        // The last records may land after the task left the queue: look once more.
        std::this_thread::sleep_for(std::chrono::seconds(1));
        if (collect(sub) == 0) return;
        for (const auto& id : sub.ids)
          if (!s_.state.done.count(id) && !s_.state.skipped.count(id)) lost(sub, id);
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
    }
    fmt::print(stderr, "hpcsens sweep: array job {} keeps running (scancel {} stops it)\n", sub.job_id, sub.job_id);
  }

  const SweepSpec& spec_;
  const Plan& plan_;
  const SweepOptions& opt_;
  Session& s_;
  Journal& journal_;
  safe_file::Dir adir_;
  std::vector<Submission> subs_;
};

}  // namespace

void run_array_sweep(const SweepSpec& spec, const Plan& plan, const SweepOptions& opt, Session& s, Journal& j) {
  if (opt.hpcsens_exe.empty()) throw std::runtime_error("slurm-array needs the hpcsens executable's path");
  Controller(spec, plan, opt, s, j).run();
}

}  // namespace hpcsens::sweep
