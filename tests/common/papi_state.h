#pragma once
// Whether PAPI's perf_event component counts on this machine, as PAPI itself says (never from
// the CPU model). Tests that count through PAPI check the counts where it is enabled and, where
// PAPI disabled it (e.g. Debian's libpfm4 4.13 knows no core PMU for AMD family 0x1a, "Error
// libpfm4 no default PMU found"; LIBPFM_FORCE_PMU=perf gives the same state on any host), that
// the product names PAPI's reason and counts nothing in its place.
//
// PAPI is asked in a forked child, so this test process's own PAPI state (the product's
// PapiSession initialises PAPI itself, after switching components off) stays untouched.
#include <papi.h>
#include <sys/wait.h>
#include <unistd.h>

#include <optional>
#include <string>

namespace hpcsens::test {

// PAPI's disabled_reason for perf_event, or nullopt where the component is enabled.
inline std::optional<std::string> papi_perf_event_disabled() {
  static const std::optional<std::string> answer = [] () -> std::optional<std::string> {
    int fds[2];
    if (::pipe(fds) != 0) return "cannot ask PAPI (pipe)";
    const pid_t child = ::fork();
    if (child == 0) {
      ::close(fds[0]);
      std::string say;
      if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT) {
        say = "DPAPI cannot initialise";
      } else {
        const int cidx = PAPI_get_component_index("perf_event");
        const PAPI_component_info_t* info = cidx >= 0 ? PAPI_get_component_info(cidx) : nullptr;
        if (!info) say = "Dthis PAPI was built without the perf_event component";
        else say = info->disabled ? "D" + std::string(info->disabled_reason) : "E";
      }
      if (::write(fds[1], say.data(), say.size()) < 0) ::_exit(1);
      ::_exit(0);
    }
    ::close(fds[1]);
    std::string got;
    char buf[512];
    for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) got.append(buf, static_cast<size_t>(n));
    ::close(fds[0]);
    if (child > 0) ::waitpid(child, nullptr, 0);
    if (got == "E") return std::nullopt;
    if (got.empty()) return "cannot ask PAPI (the child said nothing)";
    return got.substr(1);
  }();
  return answer;
}

// What the product says in that state (topdown/pmu_advice.cpp: perf_component_advice().detail
// starts with it; the counters status is "counters unavailable: " or "Top-Down unavailable: "
// followed by it).
inline std::string papi_disabled_words(const std::string& reason) {
  return "PAPI's perf_event component is disabled (" + (reason.empty() ? std::string("no reason given") : reason) + ")";
}

}  // namespace hpcsens::test
