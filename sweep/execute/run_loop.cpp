// The plan's pending runs, one after another: machine to the run's point, attempts until one
// succeeds or the retries are used up, a journal line for each attempt.
#include <fmt/core.h>

#include "common/text_escape.h"
#include "common/errors.h"
#include "sweep/execute/executor.h"
#include "sweep/execute/progress.h"
#include "sweep/process/stop.h"
#include "sweep/spec/sweep_common.h"

namespace hpcsens::sweep {
nlohmann::json run_config(const PlannedRun& run, const Point& p, const SweepSpec& spec) {
  nlohmann::json config = point_json(p, spec);
  config["label"] = p.label;
  config["sweep_point"] = p.index;
  config["repetition"] = run.repetition;
  config["sweep_run_id"] = run.id;
  config.erase("point");
  return config;
}

namespace {

// A journal line that says how an attempt ended. When it cannot be written (full disk) the
// message still says what the job did, so no outcome is lost without a word.
void journal_attempt(Journal& journal, const PlannedRun& run, int attempt, const Outcome& out,
                     const std::string& record) {
  nlohmann::json line = {{"type", "run"}, {"id", run.id}, {"attempt", attempt}, {"utc", utc_now()},
                         {"status", out.ok ? "ok" : "failed"}};
  if (out.ok) line["record"] = record;
  else line.update({{"error", out.error}, {"exit_status", out.exit_status}, {"timed_out", out.timed_out}});
  try {
    journal.append(line);
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string(e.what()) + " (" + run.id + " attempt " + std::to_string(attempt) + ": " +
                             (out.ok ? "done, record " + record : out.error) + ")");
  }
}

class Loop {
 public:
  Loop(const SweepSpec& spec, const Plan& plan, Session& s, Journal& j, Machine& m, Executor& e)
      : spec_(spec), plan_(plan), s_(s), journal_(j), machine_(m), exec_(e),
        progress_(int(plan.runs.size()), count_finished(), spec.emulation.has_value()) {}
  ~Loop() { progress_.finish(); }

  void run_all() {
    for (const auto& run : plan_.runs) {
      if (stop_signal()) return;
      if (s_.state.done.count(run.id) || s_.state.skipped.count(run.id)) continue;
      if (recovered(run)) continue;
      const bool ok = run_one(run);
      if (stop_signal()) return;
      if (!ok) skip(run);
      progress_.update(++finished_, run.id + " " + plan_.points[std::size_t(run.point)].label + (ok ? " ok" : " skipped"));
    }
  }

 private:
  int count_finished() {
    for (const auto& r : plan_.runs) finished_ += s_.state.done.count(r.id) || s_.state.skipped.count(r.id);
    return finished_;
  }
  // A run whose record landed but whose journal line did not (killed in between) is done.
  bool recovered(const PlannedRun& run) {
    const std::string path = s_.records.child(run.id + ".json");
    if (!record_usable(path)) return false;
    journal_.append({{"type", "run"}, {"id", run.id}, {"status", "ok"}, {"record", path}, {"recovered", true}});
    s_.state.done.insert(run.id);
    progress_.update(++finished_, run.id + " (found)");
    return true;
  }
  bool run_one(const PlannedRun& run) {
    const Point& p = plan_.points[std::size_t(run.point)];
    int attempt = s_.state.failed_attempts[run.id];
    while (attempt <= spec_.retries && !stop_signal()) {
      ++attempt;
      progress_.update(finished_, run.id + " " + p.label + (attempt > 1 ? " attempt " + std::to_string(attempt) : ""), false);
      const Outcome out = attempt_once(run, p, attempt);
      if (stop_signal() && !out.ok) return false;  // an interrupted attempt is not a failure of the job
      journal_attempt(journal_, run, attempt, out, s_.records.child(run.id + ".json"));
      if (out.ok) {
        s_.state.done.insert(run.id);
        return true;
      }
      ++s_.state.failed_attempts[run.id];
      fmt::print(stderr, "\nhpcsens sweep: {} attempt {} failed: {}\n", run.id, attempt, text::escape_for_message(out.error));
    }
    return false;
  }
  Outcome attempt_once(const PlannedRun& run, const Point& p, int attempt) {
    Outcome out;
    try {
      machine_.enter(p, journal_);
      if (p.index != executor_point_) exec_.new_point();
      executor_point_ = p.index;
      out = exec_.run(Attempt{run, p, attempt, run_config(run, p, spec_), run.id + ".json"});
    } catch (const InputError&) {
      throw;
    } catch (const std::exception& e) {
      out.error = e.what();
      machine_.forget_point();  // re-apply and re-calibrate on the next attempt
      executor_point_ = -1;
    }
    return out;
  }
  void skip(const PlannedRun& run) {
    const int attempts = s_.state.failed_attempts[run.id];
    journal_.append({{"type", "skipped"}, {"id", run.id}, {"attempts", attempts}});
    s_.state.skipped.insert(run.id);
    fmt::print(stderr, "hpcsens sweep: {} skipped after {} attempts; the sweep goes on\n", run.id, attempts);
  }

  const SweepSpec& spec_;
  const Plan& plan_;
  Session& s_;
  Journal& journal_;
  Machine& machine_;
  Executor& exec_;
  int finished_ = 0;
  Progress progress_;
  int executor_point_ = -1;
};

}  // namespace

void run_pending(const SweepSpec& spec, const Plan& plan, Session& session, Journal& journal, Machine& machine,
                 Executor& executor) {
  Loop(spec, plan, session, journal, machine, executor).run_all();
}

}  // namespace hpcsens::sweep
