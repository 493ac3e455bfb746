/* TEST DOUBLE of PAPI 7.0 (libpapi.so.7.0) -- NOT PAPI, and nothing it returns is a measurement.
 *
 * Why: on VMs and in CI PAPI disables its perf_event component (no hardware PMU), so the counter
 * agent's counting branch (attach, trial sets, start/stop, per-rank values, multiplexing, Top-Down
 * inputs) never runs. This library has the soname libpapi.so.7.0 and exports exactly the PAPI
 * symbols the agent imports (`nm -D -u hpcsens-counter-agent | grep PAPI`), with PAPI 7.0's
 * signatures and error codes (taken from <papi.h>). Tests put its directory first in
 * LD_LIBRARY_PATH of the ranks (mpirun -x), whose environment the agent inherits (the preload
 * drops LD_PRELOAD for the agent, so a preloaded double would never reach it).
 *
 * It enforces PAPI's rules as PAPI 7.0 answers them on this machine (checked against the real
 * libpapi: init first with PAPI_VER_CURRENT, PAPI_ENOINIT before, PAPI_EINVAL for a non-PAPI_NULL
 * create, PAPI_ENOCMP for an attach before a component is bound, PAPI_ESYS for a missing thread,
 * PAPI_EINVAL for starting an empty set, PAPI_ENOTRUN, PAPI_EISRUN, PAPI_ENOINIT for
 * PAPI_disable_component_by_name after init, ...). A call that breaks a rule gets PAPI's error
 * and a "MISUSE" line in the log ($HPCSENS_PAPI_DOUBLE_LOG); event sets left at exit are logged
 * as "LEAK". Which events exist, which are refused and what PAPI_stop reads come from the script
 * ($HPCSENS_PAPI_DOUBLE_SCRIPT, fake_papi_script.h): a value is BASE + PER_RANK * rank, the rank
 * read from the counted thread's environment, so a test computes every expected value exactly.
 *
 * Choices of the double where PAPI's answer depends on the kernel's PMU: a non-multiplexed set
 * holds `counters` events and the next add is PAPI_ECNFLCT (perf_event's "cannot be counted due
 * to hardware resource limits"); a multiplexed set holds any number and reads the script's values
 * unscaled. Single-threaded, like the agent's PAPI use. */
#include <fcntl.h>
#include <papi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_papi_script.h"

#define FAKE_PAPI_MAX_SETS 256
#define FAKE_PAPI_SET_EVENTS 32

struct fake_papi_set {
  int used, assigned, running, multiplexed, attached, rank;
  unsigned long tid;
  int n;
  const struct fake_papi_event* ev[FAKE_PAPI_SET_EVENTS];
};

static struct fake_papi_script fake_script;
static struct fake_papi_set fake_sets[FAKE_PAPI_MAX_SETS];
static PAPI_component_info_t fake_info;
static int fake_inited, fake_mpx_inited, fake_perf_disabled_by_name;

static void fake_log(const char* fmt, ...) {
  const char* path = getenv("HPCSENS_PAPI_DOUBLE_LOG");
  if (path == NULL || *path == '\0') return;
  char line[1024];
  int n = snprintf(line, sizeof line, "pid %d: ", (int)getpid());
  va_list ap;
  va_start(ap, fmt);
  n += vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
  va_end(ap);
  if (n >= (int)sizeof line - 1) n = (int)sizeof line - 2;
  line[n++] = '\n';
  const int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) return;
  if (write(fd, line, (size_t)n) < 0) { /* the log is best effort */ }
  close(fd);
}

/* A rule of PAPI broken by the caller: PAPI's own error, and a MISUSE line for the test. */
static int fake_misuse(const char* call, int rc, const char* why) {
  fake_log("MISUSE %s: %s -> %d", call, why, rc);
  return rc;
}

static struct fake_papi_set* fake_set(int es) {
  return es >= 0 && es < FAKE_PAPI_MAX_SETS && fake_sets[es].used ? &fake_sets[es] : NULL;
}

/* The MPI rank in a NUL-separated environment block; -1 when none is named. */
static int fake_rank_in(const char* env, size_t len) {
  static const char* keys[] = {"OMPI_COMM_WORLD_RANK=", "PMIX_RANK=", "PMI_RANK="};
  for (unsigned k = 0; k < sizeof keys / sizeof keys[0]; ++k)
    for (size_t at = 0; at < len; at += strlen(env + at) + 1)
      if (strncmp(env + at, keys[k], strlen(keys[k])) == 0) return atoi(env + at + strlen(keys[k]));
  return -1;
}

/* Rank of thread `tid` (its /proc/<tid>/environ); -2 when the thread does not exist. */
static int fake_rank_of_thread(unsigned long tid) {
  char path[64], env[65536];
  snprintf(path, sizeof path, "/proc/%lu/environ", tid);
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -2;
  size_t len = 0;
  for (ssize_t r; len < sizeof env - 1 && (r = read(fd, env + len, sizeof env - 1 - len)) > 0;) len += (size_t)r;
  close(fd);
  env[len] = '\0';
  return fake_rank_in(env, len);
}

static int fake_own_rank(void) {
  const char* keys[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"};
  for (unsigned k = 0; k < 3; ++k)
    if (getenv(keys[k]) != NULL) return atoi(getenv(keys[k]));
  return 0;
}

int PAPI_is_initialized(void) { return fake_inited ? PAPI_LOW_LEVEL_INITED : PAPI_NOT_INITED; }

int PAPI_library_init(int version) {
  if (version != PAPI_VER_CURRENT) return fake_misuse("PAPI_library_init", PAPI_EINVAL, "version is not PAPI_VER_CURRENT");
  if (fake_inited) return PAPI_VER_CURRENT;
  char why[600];
  if (fake_papi_read_script(getenv("HPCSENS_PAPI_DOUBLE_SCRIPT"), &fake_script, why, sizeof why) != 0) {
    fprintf(stderr, "hpcsens PAPI test double: %s\n", why);
    fake_log("SCRIPT ERROR %s", why);
    return PAPI_ESYS;
  }
  memset(&fake_info, 0, sizeof fake_info);
  snprintf(fake_info.name, sizeof fake_info.name, "perf_event");
  snprintf(fake_info.description, sizeof fake_info.description,
           "hpcsens PAPI test double: scripted values, not measurements");
  fake_info.num_cntrs = fake_script.counters;
  fake_info.num_mpx_cntrs = FAKE_PAPI_SET_EVENTS;
  fake_info.disabled = fake_script.disabled || fake_perf_disabled_by_name ? PAPI_ECMP_DISABLED : 0;
  snprintf(fake_info.disabled_reason, sizeof fake_info.disabled_reason, "%s",
           fake_perf_disabled_by_name ? "disabled by PAPI_disable_component" : fake_script.disabled_reason);
  fake_inited = 1;
  return PAPI_VER_CURRENT;
}

int PAPI_disable_component_by_name(const char* name) {
  if (fake_inited) return fake_misuse("PAPI_disable_component_by_name", PAPI_ENOINIT, "called after PAPI_library_init");
  if (name == NULL || strcmp(name, "perf_event") != 0) return PAPI_ENOCMP;  /* not in this "build" */
  fake_perf_disabled_by_name = 1;
  return PAPI_OK;
}

int PAPI_get_component_index(const char* name) {
  if (!fake_inited) return fake_misuse("PAPI_get_component_index", PAPI_ENOINIT, "PAPI not initialised");
  return name != NULL && strcmp(name, "perf_event") == 0 ? 0 : PAPI_ENOCMP;
}

const PAPI_component_info_t* PAPI_get_component_info(int cidx) {
  if (!fake_inited) {
    fake_misuse("PAPI_get_component_info", 0, "PAPI not initialised");
    return NULL;
  }
  return cidx == 0 ? &fake_info : NULL;
}

char* PAPI_strerror(int code) {
  static const char* text[] = {"No error", "Invalid argument", "Insufficient memory",
      "A System/C library call failed", "Not supported by component", "Access to the counters was lost or interrupted",
      "Internal error, please send mail to the developers", "Event does not exist",
      "Event exists, but cannot be counted due to hardware resource limits", "EventSet is currently not running",
      "EventSet is currently counting", "No such EventSet available", "Event in argument is not a valid preset",
      "Hardware does not support performance counters", "Unknown error code", "Permission level does not permit operation",
      "PAPI hasn't been initialized yet", "Component Index isn't set", "Not supported", "Not implemented",
      "Buffer size exceeded", "EventSet domain is not supported for the operation", "Invalid or missing event attributes",
      "Too many events or attributes", "Bad combination of features", "Component containing event is disabled"};
  /* PAPI 7.0 returns NULL before its error table exists (before PAPI_library_init) and out of range. */
  if (!fake_inited || code > 0 || -code >= (int)(sizeof text / sizeof text[0])) return NULL;
  return (char*)text[-code];
}

int PAPI_create_eventset(int* es) {
  if (!fake_inited) return fake_misuse("PAPI_create_eventset", PAPI_ENOINIT, "PAPI not initialised");
  if (es == NULL || *es != PAPI_NULL) return fake_misuse("PAPI_create_eventset", PAPI_EINVAL, "*EventSet is not PAPI_NULL");
  for (int i = 0; i < FAKE_PAPI_MAX_SETS; ++i) {
    if (fake_sets[i].used) continue;
    memset(&fake_sets[i], 0, sizeof fake_sets[i]);
    fake_sets[i].used = 1;
    fake_sets[i].rank = fake_own_rank();
    *es = i;
    return PAPI_OK;
  }
  return PAPI_ENOMEM;
}

int PAPI_assign_eventset_component(int es, int cidx) {
  struct fake_papi_set* s = fake_set(es);
  if (s == NULL) return fake_misuse("PAPI_assign_eventset_component", PAPI_ENOEVST, "no such event set");
  if (cidx != 0) return fake_misuse("PAPI_assign_eventset_component", PAPI_ENOCMP, "no such component");
  if (s->assigned || s->n > 0) return fake_misuse("PAPI_assign_eventset_component", PAPI_EINVAL, "set already bound");
  s->assigned = 1;
  return PAPI_OK;
}

int PAPI_attach(int es, unsigned long tid) {
  struct fake_papi_set* s = fake_set(es);
  if (s == NULL) return fake_misuse("PAPI_attach", PAPI_ENOEVST, "no such event set");
  if (!s->assigned) return fake_misuse("PAPI_attach", PAPI_ENOCMP, "no component bound before attach");
  if (s->running) return fake_misuse("PAPI_attach", PAPI_EISRUN, "set is counting");
  if (s->attached) return fake_misuse("PAPI_attach", PAPI_EINVAL, "set already attached");
  if (fake_info.disabled) return PAPI_ECMP;
  const int rank = fake_rank_of_thread(tid);
  if (rank == -2) return PAPI_ESYS;  /* the thread does not exist (perf_event_open: ESRCH) */
  if (rank < 0) {
    fake_log("ATTACH tid %lu: no rank in its environment", tid);
    return PAPI_ESYS;
  }
  s->attached = 1;
  s->tid = tid;
  s->rank = rank;
  return PAPI_OK;
}

int PAPI_add_named_event(int es, const char* name) {
  struct fake_papi_set* s = fake_set(es);
  if (!fake_inited) return fake_misuse("PAPI_add_named_event", PAPI_ENOINIT, "PAPI not initialised");
  if (s == NULL) return fake_misuse("PAPI_add_named_event", PAPI_ENOEVST, "no such event set");
  if (s->running) return fake_misuse("PAPI_add_named_event", PAPI_EISRUN, "set is counting");
  if (name == NULL || fake_info.disabled) return PAPI_ENOEVNT;
  const int refused = fake_papi_refusal(&fake_script, name, s->rank);
  if (refused != 0) return refused;
  const struct fake_papi_event* e = fake_papi_find_event(&fake_script, name);
  if (e == NULL) return PAPI_ENOEVNT;
  for (int i = 0; i < s->n; ++i)
    if (s->ev[i] == e) return PAPI_ECNFLCT;
  if (s->n >= (s->multiplexed ? FAKE_PAPI_SET_EVENTS : fake_script.counters)) return PAPI_ECNFLCT;
  s->assigned = 1;  /* PAPI binds the event's component on the first add */
  s->ev[s->n++] = e;
  return PAPI_OK;
}

int PAPI_start(int es) {
  struct fake_papi_set* s = fake_set(es);
  if (s == NULL) return fake_misuse("PAPI_start", PAPI_ENOEVST, "no such event set");
  if (s->running) return fake_misuse("PAPI_start", PAPI_EISRUN, "set is already counting");
  if (s->n == 0) return fake_misuse("PAPI_start", PAPI_EINVAL, "set has no events");
  for (int i = 0; i < FAKE_PAPI_MAX_SETS; ++i)
    if (fake_sets[i].used && fake_sets[i].running && fake_sets[i].tid == s->tid)
      return fake_misuse("PAPI_start", PAPI_EISRUN, "another set is counting the same thread");
  for (int i = 0; i < s->n; ++i)
    if (s->ev[i]->start_error != 0) return s->ev[i]->start_error;
  s->running = 1;
  return PAPI_OK;
}

int PAPI_stop(int es, long long* values) {
  struct fake_papi_set* s = fake_set(es);
  if (s == NULL) return fake_misuse("PAPI_stop", PAPI_ENOEVST, "no such event set");
  if (!s->running) return fake_misuse("PAPI_stop", PAPI_ENOTRUN, "set is not counting");
  s->running = 0;
  if (fake_script.stop_error != 0) {
    fake_log("STOP set %d tid %lu rank %d: scripted error %d", es, s->tid, s->rank, fake_script.stop_error);
    return fake_script.stop_error;
  }
  for (int i = 0; i < s->n && values != NULL; ++i) values[i] = s->ev[i]->base + s->ev[i]->per_rank * s->rank;
  fake_log("STOP set %d tid %lu rank %d events %d multiplexed %d", es, s->tid, s->rank, s->n, s->multiplexed);
  return PAPI_OK;
}

int PAPI_cleanup_eventset(int es) {
  struct fake_papi_set* s = fake_set(es);
  if (s == NULL) return fake_misuse("PAPI_cleanup_eventset", PAPI_ENOEVST, "no such event set");
  if (s->running) return fake_misuse("PAPI_cleanup_eventset", PAPI_EISRUN, "set is counting");
  s->n = 0;
  s->multiplexed = 0;
  return PAPI_OK;
}

int PAPI_destroy_eventset(int* es) {
  struct fake_papi_set* s = es != NULL ? fake_set(*es) : NULL;
  if (s == NULL) return fake_misuse("PAPI_destroy_eventset", PAPI_ENOEVST, "no such event set");
  if (s->running) return fake_misuse("PAPI_destroy_eventset", PAPI_EISRUN, "set is counting");
  if (s->n > 0) return fake_misuse("PAPI_destroy_eventset", PAPI_EINVAL, "set still holds events");
  s->used = 0;
  *es = PAPI_NULL;
  return PAPI_OK;
}

int PAPI_multiplex_init(void) {
  if (!fake_inited) return fake_misuse("PAPI_multiplex_init", PAPI_ENOINIT, "PAPI not initialised");
  fake_mpx_inited = 1;
  return PAPI_OK;
}

int PAPI_set_multiplex(int es) {
  struct fake_papi_set* s = fake_set(es);
  if (s == NULL) return fake_misuse("PAPI_set_multiplex", PAPI_ENOEVST, "no such event set");
  if (!fake_mpx_inited) return fake_misuse("PAPI_set_multiplex", PAPI_EINVAL, "PAPI_multiplex_init not called");
  if (!s->assigned) return fake_misuse("PAPI_set_multiplex", PAPI_ENOCMP, "no component bound");
  if (s->running) return fake_misuse("PAPI_set_multiplex", PAPI_EISRUN, "set is counting");
  if (s->multiplexed) return fake_misuse("PAPI_set_multiplex", PAPI_EINVAL, "set already multiplexed");
  if (fake_script.multiplex_error != 0) return fake_script.multiplex_error;
  s->multiplexed = 1;
  return PAPI_OK;
}

void PAPI_shutdown(void) {
  if (!fake_inited) {
    fake_misuse("PAPI_shutdown", 0, "PAPI not initialised");
    return;
  }
  memset(fake_sets, 0, sizeof fake_sets);
  fake_inited = fake_mpx_inited = fake_perf_disabled_by_name = 0;
}

/* Event sets still held when the process ends: the agent must release every set it made. The
 * EXIT line says the check ran (a process killed outright runs no destructor). */
__attribute__((destructor)) static void fake_papi_report_leaks(void) {
  int held = 0;
  for (int i = 0; i < FAKE_PAPI_MAX_SETS; ++i)
    if (fake_sets[i].used) {
      ++held;
      fake_log("LEAK event set %d: %d events, running %d, tid %lu", i, fake_sets[i].n, fake_sets[i].running,
               fake_sets[i].tid);
    }
  fake_log("EXIT %d event sets held", held);
}
