#pragma once
// One run of the plan: its attempts, each measured (calibrate once per point, the job through
// the run module, the record completed and moved to records/) or emulated (the record computed
// from the spec's ground truth), behind one interface; retries and the journal lines around
// them are the same for both.
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sweep/journal/journal.h"
#include "sweep/knobs/knobs.h"
#include "sweep/execute/machine.h"
#include "sweep/spec/plan.h"
#include "sweep/journal/session.h"
#include "sweep/execute/sweep_options.h"

namespace hpcsens::sweep {

struct Attempt {
  const PlannedRun& run;
  const Point& point;
  int number;              // 1-based
  nlohmann::json config;   // the point's settings, merged into the record
  std::string final_name;  // records/<name>
};

struct Outcome {
  bool ok = false;
  std::string error;
  int exit_status = 0;
  bool timed_out = false;
};

class Executor {
 public:
  virtual ~Executor() = default;
  // Runs one attempt. Throws for failures of the sweep itself (not of the job).
  virtual Outcome run(const Attempt& a) = 0;
  // The machine moved to another point: measurements made at the old one no longer hold.
  virtual void new_point() {}
};

// The point's settings and the run's identity, merged into its record.
nlohmann::json run_config(const PlannedRun& run, const Point& p, const SweepSpec& spec);

// With `journal`, every run module forked for an attempt is journalled ("child": pid, start
// time, boot id) so that --resume can see it outlive a kill -9 of the sweep.
std::unique_ptr<Executor> make_executor(const SweepSpec& spec, const KnobSet& knobs, const SweepOptions& opt,
                                        Session& session, Journal* journal = nullptr);

// Runs every pending run of the plan (retrying failures, skipping a run after its retries)
// until done or stopped by a signal. Throws for failures of the sweep itself.
void run_pending(const SweepSpec& spec, const Plan& plan, Session& session, Journal& journal, Machine& machine,
                 Executor& executor);

}  // namespace hpcsens::sweep
