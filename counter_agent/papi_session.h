#pragma once
// The rank's hardware/software counter session. Never fails the job: whatever PAPI refuses
// (no PMU, permission, unknown event, too many events) ends up as a readable status instead.
//
// What is counted: one thread, `tid` (PAPI_attach: perf_event on that thread id, other threads
// of its process not included). The counter agent attaches to the rank's MPI_Init thread and
// counts from just after the init barrier to just before the finalize barrier; tid 0 counts the
// calling thread itself.
#include <optional>
#include <string>
#include <vector>

#include <sys/types.h>

#include "counter_agent/counter_readings.h"
#include "topdown/event_plan.h"

namespace hpcsens::agent {

// PAPI's reason for disabling its perf_event component (the only one hpcsens counts with), or
// nullopt while it is enabled. Initialises PAPI if needed; a PAPI without the component, or one
// that cannot initialise, is reported as disabled with that reason.
std::optional<std::string> perf_component_disabled();

class PapiSession : public CounterReadings {
 public:
  // own_papi: the session shuts PAPI down when it is done (a per-rank agent, the tests). The
  // node's agent holds several sessions at once and passes false: one session's end must not
  // tear down the others' event sets (PAPI is process-wide); the agent's exit releases it.
  explicit PapiSession(bool own_papi = true) : own_papi_(own_papi) {}
  // Sets up `plan` without counting yet (this is slow: PAPI initialisation, trial event sets;
  // it runs before the init barrier so it stays out of the measured span). Groups are tried one
  // by one; a required group PAPI refuses makes status() say so, an optional one is dropped with
  // a note. Top-Down plans keep level 1 one group and add later groups only where they fit
  // beside it (never multiplexed); other plans multiplex accepted groups that do not fit together.
  void prepare(const topdown::EventPlan& plan, pid_t tid = 0);
  // Starts counting what prepare() accepted.
  void start();
  // Stops counting and fills values().
  void stop();

 private:
  bool own_papi_ = true;
  int eventset_ = -1;
  pid_t tid_ = 0;
  bool running_ = false;
  std::vector<std::string> events_;

  // Drops (with a note) every group after the first that does not fit on the counters together
  // with the first and the groups kept before it.
  void keep_groups_fitting_beside_first(std::vector<const topdown::EventGroup*>& accepted);
};

}  // namespace hpcsens::agent
