/* TEST DOUBLE, not PAPI. The script that tells the PAPI test double (fake_papi.c) which events
 * exist and what it answers for them. The numbers it returns are the script's, never
 * measurements. Format (one directive a line, '#' starts a comment):
 *   counters N                 events one non-multiplexed event set holds (default 8)
 *   event NAME BASE PER_RANK   NAME exists; PAPI_stop reads BASE + PER_RANK * rank, where rank is
 *                              the counted thread's OMPI_COMM_WORLD_RANK (PMIX_RANK, PMI_RANK)
 *   refuse NAME ERROR          adding NAME returns ERROR (a PAPI_E* name, e.g. PAPI_EPERM)
 *   refuse_on_rank R NAME ERROR  the same, only in event sets counting rank R's thread
 *   start_refuse NAME ERROR    adding NAME works, starting a set that holds it fails with ERROR
 *                              (a hardware event in a VM without PMU passthrough)
 *   stop_error ERROR           every PAPI_stop fails with ERROR (values not written)
 *   multiplex_error ERROR      every PAPI_set_multiplex fails with ERROR
 *   disabled REASON...         the perf_event component is disabled with that reason */
#ifndef HPCSENS_FAKE_PAPI_SCRIPT_H
#define HPCSENS_FAKE_PAPI_SCRIPT_H

#define FAKE_PAPI_MAX_EVENTS 64
#define FAKE_PAPI_NAME_LEN 256

struct fake_papi_event {
  char name[FAKE_PAPI_NAME_LEN];
  long long base, per_rank;
  int refuse;      /* 0, or the PAPI error adding it returns */
  int refuse_rank; /* with refuse: the rank it is refused on, -1 for every rank */
  int start_error; /* 0, or the error PAPI_start of a set holding it returns */
};

struct fake_papi_script {
  int counters;
  int stop_error;      /* 0 or a PAPI error */
  int multiplex_error; /* 0 or a PAPI error */
  int disabled;
  char disabled_reason[512];
  int nevents;
  struct fake_papi_event events[FAKE_PAPI_MAX_EVENTS];
};

/* Reads `path` into `s`. 0 on success; otherwise -1 with `why` naming the file, line and field. */
int fake_papi_read_script(const char* path, struct fake_papi_script* s, char* why, unsigned why_len);

/* The script's values for `name`, or NULL (the event does not exist). */
const struct fake_papi_event* fake_papi_find_event(const struct fake_papi_script* s, const char* name);

/* The error adding `name` to a set counting `rank` gets (0: none). */
int fake_papi_refusal(const struct fake_papi_script* s, const char* name, int rank);

#endif
