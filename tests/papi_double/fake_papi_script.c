/* TEST DOUBLE, not PAPI: reads the script of fake_papi_script.h. */
#include "fake_papi_script.h"

#include <papi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fake_papi_error_code(const char* name) {
  static const struct { const char* name; int code; } known[] = {
      {"PAPI_EINVAL", PAPI_EINVAL},   {"PAPI_ENOMEM", PAPI_ENOMEM}, {"PAPI_ESYS", PAPI_ESYS},
      {"PAPI_ECMP", PAPI_ECMP},       {"PAPI_ENOEVNT", PAPI_ENOEVNT}, {"PAPI_ECNFLCT", PAPI_ECNFLCT},
      {"PAPI_ENOCNTR", PAPI_ENOCNTR}, {"PAPI_EPERM", PAPI_EPERM},   {"PAPI_ENOSUPP", PAPI_ENOSUPP},
      {"PAPI_ECOUNT", PAPI_ECOUNT},   {"PAPI_ECOMBO", PAPI_ECOMBO}, {"PAPI_EMISC", PAPI_EMISC}};
  for (unsigned i = 0; i < sizeof known / sizeof known[0]; ++i)
    if (strcmp(name, known[i].name) == 0) return known[i].code;
  return 0;
}

static int fake_papi_number(const char* text, long long* out) {
  char* end = NULL;
  *out = strtoll(text, &end, 10);
  return end != text && *end == '\0';
}

static struct fake_papi_event* fake_papi_value_entry(struct fake_papi_script* s, const char* name) {
  for (int i = 0; i < s->nevents; ++i)
    if (s->events[i].refuse == 0 && strcmp(s->events[i].name, name) == 0) return &s->events[i];
  return NULL;
}

int fake_papi_read_script(const char* path, struct fake_papi_script* s, char* why, unsigned why_len) {
  memset(s, 0, sizeof *s);
  s->counters = 8;
  FILE* f = path != NULL ? fopen(path, "r") : NULL;
  if (f == NULL) {
    snprintf(why, why_len, "cannot open the script '%s' (HPCSENS_PAPI_DOUBLE_SCRIPT)", path ? path : "(unset)");
    return -1;
  }
  char line[1024];
  int lineno = 0, bad = 0;
  while (!bad && fgets(line, sizeof line, f) != NULL) {
    ++lineno;
    char* hash = strchr(line, '#');
    if (hash != NULL) *hash = '\0';
    char* save = NULL;
    const char* word = strtok_r(line, " \t\r\n", &save);
    if (word == NULL) continue;
    const char* a = strtok_r(NULL, " \t\r\n", &save);
    const char* b = strtok_r(NULL, " \t\r\n", &save);
    const char* c = strtok_r(NULL, " \t\r\n", &save);
    long long n = 0, m = 0;
    if (strcmp(word, "counters") == 0 && a && fake_papi_number(a, &n) && n > 0 && !b) {
      s->counters = (int)n;
    } else if (strcmp(word, "event") == 0 && a && b && c && fake_papi_number(b, &n) && fake_papi_number(c, &m) &&
               strlen(a) < FAKE_PAPI_NAME_LEN && s->nevents < FAKE_PAPI_MAX_EVENTS) {
      struct fake_papi_event* e = &s->events[s->nevents++];
      snprintf(e->name, sizeof e->name, "%s", a);
      e->base = n;
      e->per_rank = m;
    } else if (strcmp(word, "refuse") == 0 && a && b && !c && fake_papi_error_code(b) != 0 &&
               strlen(a) < FAKE_PAPI_NAME_LEN && s->nevents < FAKE_PAPI_MAX_EVENTS) {
      struct fake_papi_event* e = &s->events[s->nevents++];
      snprintf(e->name, sizeof e->name, "%s", a);
      e->refuse = fake_papi_error_code(b);
      e->refuse_rank = -1;
    } else if (strcmp(word, "refuse_on_rank") == 0 && a && b && c && fake_papi_number(a, &n) && n >= 0 &&
               fake_papi_error_code(c) != 0 && strlen(b) < FAKE_PAPI_NAME_LEN && s->nevents < FAKE_PAPI_MAX_EVENTS) {
      struct fake_papi_event* e = &s->events[s->nevents++];
      snprintf(e->name, sizeof e->name, "%s", b);
      e->refuse = fake_papi_error_code(c);
      e->refuse_rank = (int)n;
    } else if (strcmp(word, "stop_error") == 0 && a && fake_papi_error_code(a) != 0 && !b) {
      s->stop_error = fake_papi_error_code(a);
    } else if (strcmp(word, "start_refuse") == 0 && a && b && !c && fake_papi_error_code(b) != 0 &&
               fake_papi_value_entry(s, a) != NULL) {
      fake_papi_value_entry(s, a)->start_error = fake_papi_error_code(b);
    } else if (strcmp(word, "multiplex_error") == 0 && a && fake_papi_error_code(a) != 0 && !b) {
      s->multiplex_error = fake_papi_error_code(a);
    } else if (strcmp(word, "disabled") == 0 && a) {
      s->disabled = 1;
      snprintf(s->disabled_reason, sizeof s->disabled_reason, "%s%s%s%s%s", a, b ? " " : "", b ? b : "",
               c ? " " : "", c ? c : "");
      for (const char* rest; (rest = strtok_r(NULL, " \t\r\n", &save)) != NULL;)
        strncat(strncat(s->disabled_reason, " ", sizeof s->disabled_reason - strlen(s->disabled_reason) - 1), rest,
                sizeof s->disabled_reason - strlen(s->disabled_reason) - 1);
    } else {
      snprintf(why, why_len, "%s:%d: cannot read '%s' (expected: counters N | event NAME BASE PER_RANK | "
               "refuse NAME PAPI_E... | refuse_on_rank R NAME PAPI_E... | start_refuse NAME PAPI_E... (after its event line) | stop_error PAPI_E... | multiplex_error PAPI_E... | disabled REASON)", path, lineno, word);
      bad = 1;
    }
  }
  fclose(f);
  return bad ? -1 : 0;
}

const struct fake_papi_event* fake_papi_find_event(const struct fake_papi_script* s, const char* name) {
  return fake_papi_value_entry((struct fake_papi_script*)s, name);  /* read only here */
}

int fake_papi_refusal(const struct fake_papi_script* s, const char* name, int rank) {
  for (int i = 0; i < s->nevents; ++i) {
    const struct fake_papi_event* e = &s->events[i];
    if (e->refuse != 0 && strcmp(e->name, name) == 0 && (e->refuse_rank < 0 || e->refuse_rank == rank)) return e->refuse;
  }
  return 0;
}
