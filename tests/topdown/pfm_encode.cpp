#include "tests/topdown/pfm_encode.h"

#include <perfmon/pfmlib_perf_event.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace hpcsens::testing {
namespace {

// Runs in the child: force `pmu`, encode each event, write "ok <config> <name>" or "bad <text>"
// lines to `fd`.
int encode_in_child(const std::string& pmu, const std::vector<std::string>& events, int fd) {
  ::setenv("LIBPFM_FORCE_PMU", pmu.c_str(), 1);
  if (pfm_initialize() != PFM_SUCCESS) {
    dprintf(fd, "bad pfm_initialize failed for %s\n", pmu.c_str());
    return 1;
  }
  int bad = 0;
  for (const auto& e : events) {
    const std::string full = pmu + "::" + e;
    perf_event_attr attr;
    std::memset(&attr, 0, sizeof attr);
    pfm_perf_encode_arg_t arg;
    std::memset(&arg, 0, sizeof arg);
    arg.attr = &attr;
    arg.size = sizeof arg;
    const int rc = pfm_get_os_event_encoding(full.c_str(), PFM_PLM3, PFM_OS_PERF_EVENT, &arg);
    if (rc != PFM_SUCCESS) {
      dprintf(fd, "bad %s: %s\n", full.c_str(), pfm_strerror(rc));
      ++bad;
    } else {
      dprintf(fd, "ok %llu %s\n", static_cast<unsigned long long>(attr.config), e.c_str());
    }
  }
  pfm_terminate();
  return bad == 0 ? 0 : 1;
}

}  // namespace

std::string pfm_encode_all(const std::string& pmu, const std::vector<std::string>& events,
                           std::map<std::string, unsigned long long>* configs) {
  int pipefd[2];
  if (::pipe(pipefd) != 0) return "pipe failed";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(pipefd[0]);
    const int rc = encode_in_child(pmu, events, pipefd[1]);
    ::close(pipefd[1]);
    ::_exit(rc);
  }
  ::close(pipefd[1]);
  std::string out;
  char buf[512];
  ssize_t n;
  while ((n = ::read(pipefd[0], buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
  ::close(pipefd[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  std::string failures;
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("ok ", 0) == 0) {
      std::istringstream f(line.substr(3));
      unsigned long long config = 0;
      std::string name;
      f >> config >> name;
      if (configs != nullptr) (*configs)[name] = config;
    } else {
      failures += line.substr(line.rfind("bad ", 0) == 0 ? 4 : 0) + "\n";
    }
  }
  if (!WIFEXITED(status)) return "child crashed\n" + failures;
  if (WEXITSTATUS(status) != 0 && failures.empty()) return "child failed";
  return failures;
}

}  // namespace hpcsens::testing
