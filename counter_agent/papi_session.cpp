#include "counter_agent/papi_session.h"

#include <papi.h>

#include "counter_agent/running_fraction.h"
#include "topdown/pmu_advice.h"

namespace hpcsens::agent {
namespace {

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& e : v) s += (s.empty() ? "" : ",") + e;
  return s;
}

// An event set bound to the perf_event component (the only one used) and, for another thread,
// attached to it. Binding first is what PAPI_attach requires.
int new_eventset(int* es, pid_t tid) {
  *es = PAPI_NULL;
  int rc = PAPI_create_eventset(es);
  if (rc == PAPI_OK) rc = PAPI_assign_eventset_component(*es, 0);
  if (rc == PAPI_OK && tid != 0) rc = PAPI_attach(*es, static_cast<unsigned long>(tid));
  if (rc != PAPI_OK && *es != PAPI_NULL) {
    PAPI_cleanup_eventset(*es);
    PAPI_destroy_eventset(es);
  }
  return rc;
}

// Whether every event of `events` can be counted together, tried in a scratch event set.
struct Refusal {
  std::string event;       // the refused event ("" when PAPI accepted the group)
  std::string papi_error;  // PAPI_strerror of the refusal
  std::string text() const { return event + ": " + papi_error; }
};
Refusal try_group(const std::vector<std::string>& events, pid_t tid) {
  int es = PAPI_NULL;
  if (int rc = new_eventset(&es, tid); rc != PAPI_OK)
    return {join(events), (tid != 0 ? "cannot create an event set attached to thread " +
                           std::to_string(tid) + ": " : std::string("cannot create event set: ")) +
                              PAPI_strerror(rc)};
  Refusal why;
  for (const auto& e : events) {
    if (int rc = PAPI_add_named_event(es, e.c_str()); rc != PAPI_OK) {
      why = {e, PAPI_strerror(rc)};
      break;
    }
  }
  if (why.event.empty()) {
    // Adding can succeed where starting fails (e.g. a PMU event in a VM): start to be sure.
    if (int rc = PAPI_start(es); rc != PAPI_OK) {
      why = {join(events), std::string("cannot start: ") + PAPI_strerror(rc)};
    } else {
      std::vector<long long> scratch(events.size());
      PAPI_stop(es, scratch.data());
    }
  }
  PAPI_cleanup_eventset(es);
  PAPI_destroy_eventset(&es);
  return why;
}

// The status of a plan PAPI cannot count at all because its perf_event component is disabled:
// every event would be refused one by one as "does not exist", so say why once, in words. The
// CPU is this machine's own (libpfm4 probed it), never an identity injected for the plan.
std::string disabled_status(const topdown::EventPlan& plan, const std::string& why) {
  const auto advice = topdown::perf_component_advice(why, topdown::detect_cpu_at("/"), topdown::kernel_software_pmu("/"));
  if (plan.name.rfind("topdown", 0) == 0) return "Top-Down unavailable: " + advice.detail;
  // The events asked for (--events) are named right after PAPI's reason, so the record (its
  // status is clipped at 255 bytes) and the warning say what was not counted.
  std::vector<std::string> asked;
  for (const auto& g : plan.groups) asked.insert(asked.end(), g.events.begin(), g.events.end());
  std::string detail = advice.detail;
  const std::string reason = "(" + (why.empty() ? std::string("no reason given") : why) + ")";
  const std::size_t at = detail.find(reason);
  detail.insert(at == std::string::npos ? detail.size() : at + reason.size(), " [not counted: " + join(asked) + "]");
  return "counters unavailable: " + detail;
}

}  // namespace

std::optional<std::string> perf_component_disabled() {
  if (!PAPI_is_initialized()) {
    if (int rc = PAPI_library_init(PAPI_VER_CURRENT); rc != PAPI_VER_CURRENT)
      return std::string("PAPI cannot initialise: ") + (rc < 0 ? PAPI_strerror(rc) : "version mismatch");
  }
  const int cidx = PAPI_get_component_index("perf_event");
  const PAPI_component_info_t* info = cidx >= 0 ? PAPI_get_component_info(cidx) : nullptr;
  if (!info) return std::string("this PAPI was built without the perf_event component");
  if (!info->disabled) return std::nullopt;
  return std::string(info->disabled_reason);
}

void PapiSession::prepare(const topdown::EventPlan& plan, pid_t tid) {
  event_set_ = plan.name;
  tid_ = tid;
  if (!plan.available) {
    status_ = plan.note.empty() ? "no counters planned" : plan.note;
    warn_ = plan.name != "none";
    return;
  }
  // Only perf_event is ever used. Other components probe at init or on every event-name lookup
  // (rocm_smi prints "Failed to open drm root directory" into the job's stderr on a refused
  // name), so switch them off first; names this PAPI was built without are simply not found.
  // Only before PAPI_library_init: PAPI refuses it afterwards (PAPI_ENOINIT), which the node
  // agent's later sessions would otherwise ask 24 times each (found with tests/papi_double).
  if (!PAPI_is_initialized())
    for (const char* unused : {"rocm_smi", "rocm", "cuda", "nvml", "sde", "infiniband",
                               "lmsensors", "net", "powercap", "rapl", "appio", "io", "coretemp",
                               "stealtime", "lustre", "micpower", "host_micpower", "vmware", "intel_gpu",
                               "libmsr", "pcp", "bgpm", "emon", "example"})
      PAPI_disable_component_by_name(unused);
  if (int rc = PAPI_library_init(PAPI_VER_CURRENT); rc != PAPI_VER_CURRENT) {
    fail(std::string("PAPI unavailable: ") + (rc < 0 ? PAPI_strerror(rc) : "version mismatch"));
    return;
  }
  if (const auto why = perf_component_disabled()) {
    if (own_papi_) PAPI_shutdown();  // nothing will count: hold no PAPI state (stop() shuts down only a running session)
    fail(disabled_status(plan, *why));
    return;
  }
  if (!plan.raw_encodings.empty()) notes_.push_back(plan.raw_encodings);
  std::vector<const topdown::EventGroup*> accepted;
  bool refused = false;
  for (const auto& g : plan.groups) {
    const Refusal why = try_group(g.events, tid_);
    if (why.event.empty()) {
      accepted.push_back(&g);
    } else if (g.required) {
      // The status names the first refusal in the plan's own words (e.g. "Top-Down
      // unavailable: ... (no hardware PMU / ...)"); further refusals go to the notes.
      if (!refused) fail(topdown::unavailable_status(plan, why.event, why.papi_error));
      notes_.push_back("required events " + join(g.events) + " not counted: " + why.text());
      refused = true;
    } else {
      notes_.push_back("optional events " + join(g.events) + " not counted: " + why.text());
    }
  }
  // Top-Down without level 1: the later groups' counts are fractions of level-1 slots and mean
  // nothing alone, so count none of them (found with tests/papi_double).
  if (refused && plan.name.rfind("topdown", 0) == 0) {
    for (const auto* g : accepted) notes_.push_back("level-2 events " + join(g->events) + " not counted: level 1 was refused");
    return;
  }
  if (accepted.empty()) {
    if (!refused) fail("no events could be counted");
    return;
  }
  if (int rc = new_eventset(&eventset_, tid_); rc != PAPI_OK) {
    fail(std::string("PAPI: cannot create event set: ") + PAPI_strerror(rc));
    return;
  }
  // Top-Down: level 1 stays one group, read together, never time-sliced (a remainder such as
  // Skylake's Backend Bound would mix slices); later groups are counted only where they fit.
  if (accepted.size() > 1 && plan.name.rfind("topdown", 0) == 0) keep_groups_fitting_beside_first(accepted);
  if (accepted.size() > 1) {
    std::vector<std::string> all;
    for (const auto* g : accepted) all.insert(all.end(), g->events.begin(), g->events.end());
    // Groups that fit on the counters together are counted all the time, not time-sliced.
    if (!try_group(all, tid_).event.empty()) {
      // Otherwise the groups share the counters in time slices; values are scaled estimates.
      int rc = PAPI_multiplex_init();
      if (rc == PAPI_OK) rc = PAPI_set_multiplex(eventset_);
      if (rc == PAPI_OK) {
        multiplexed_ = true;
      } else {
        const std::string why = std::string("multiplexing refused: ") + PAPI_strerror(rc);
        for (size_t i = 1; i < accepted.size(); ++i) {
          notes_.push_back("events " + join(accepted[i]->events) + " not counted: " + why);
          if (accepted[i]->required) fail("PAPI cannot count " + join(accepted[i]->events) +
                                          " together with " + join(accepted[0]->events) + ": " +
                                          why);
        }
        accepted.erase(accepted.begin() + 1, accepted.end());
      }
    }
  }
  for (const auto* g : accepted) {
    for (const auto& e : g->events) {
      if (int rc = PAPI_add_named_event(eventset_, e.c_str()); rc == PAPI_OK) {
        events_.push_back(e);
      } else {
        notes_.push_back(e + " not counted: " + PAPI_strerror(rc));
        if (g->required && status_ == "ok")
          fail(topdown::unavailable_status(plan, e, PAPI_strerror(rc)));
      }
    }
  }
}

void PapiSession::keep_groups_fitting_beside_first(std::vector<const topdown::EventGroup*>& accepted) {
  std::vector<std::string> together = accepted[0]->events;
  std::vector<const topdown::EventGroup*> kept = {accepted[0]};
  for (size_t i = 1; i < accepted.size(); ++i) {
    std::vector<std::string> candidate = together;
    candidate.insert(candidate.end(), accepted[i]->events.begin(), accepted[i]->events.end());
    if (try_group(candidate, tid_).event.empty()) {
      together = std::move(candidate);
      kept.push_back(accepted[i]);
    } else {
      notes_.push_back("level-2 events " + join(accepted[i]->events) +
                       " not counted: they do not fit on the counters beside level 1, and "
                       "multiplexing would read level 1 in different time slices");
    }
  }
  accepted = std::move(kept);
}

void PapiSession::start() {
  if (events_.empty()) return;
  if (int rc = PAPI_start(eventset_); rc != PAPI_OK) {
    fail(std::string("PAPI: cannot start counting: ") + PAPI_strerror(rc));
    events_.clear();
    return;
  }
  running_ = true;
}

void PapiSession::stop() {
  if (!running_) return;
  running_ = false;
  std::vector<long long> v(events_.size());
  if (int rc = PAPI_stop(eventset_, v.data()); rc != PAPI_OK) {
    fail(std::string("PAPI: cannot read counters: ") + PAPI_strerror(rc));
  } else {
    for (size_t i = 0; i < events_.size(); ++i) values_[events_[i]] = static_cast<double>(v[i]);
    RunningFraction f = papi_running_fraction(events_, multiplexed_, hybrid_core_pmus());
    running_fraction_ = std::move(f.by_event);
    running_fraction_reason_ = std::move(f.reason);
  }
  // Torn down whether or not the stop worked: a failed stop must not leave PAPI's event set,
  // its perf_event descriptors and its threads behind in the job's process.
  if (int rc = PAPI_cleanup_eventset(eventset_); rc != PAPI_OK)
    notes_.push_back(std::string("PAPI_cleanup_eventset failed: ") + PAPI_strerror(rc));
  if (int rc = PAPI_destroy_eventset(&eventset_); rc != PAPI_OK)
    notes_.push_back(std::string("PAPI_destroy_eventset failed: ") + PAPI_strerror(rc));
  if (own_papi_) PAPI_shutdown();
}

}  // namespace hpcsens::agent
