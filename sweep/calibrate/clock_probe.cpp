#include "sweep/calibrate/clock_probe.h"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace hpcsens::sweep {
namespace {

double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

// A dependent chain of register adds, eight per iteration. Register, not immediate, operands:
// Golden Cove and later fold add-immediate chains in the renamer. The empty asm keeps the
// compiler from folding the chain.
std::uint64_t add_chain(std::uint64_t iters) {
  std::uint64_t x = 0, one = 1;
  asm volatile("" : "+r"(one));  // the compiler must not know it is 1
  for (std::uint64_t i = 0; i < iters; ++i) {
    x += one; asm volatile("" : "+r"(x));
    x += one; asm volatile("" : "+r"(x));
    x += one; asm volatile("" : "+r"(x));
    x += one; asm volatile("" : "+r"(x));
    x += one; asm volatile("" : "+r"(x));
    x += one; asm volatile("" : "+r"(x));
    x += one; asm volatile("" : "+r"(x));
    x += one; asm volatile("" : "+r"(x));
  }
  if (x != iters * 8) std::abort();
  return x;
}

bool read_into(const ThreadCycleCounter& counter, std::uint64_t& out) {
  const auto v = counter.read();
  out = v.value_or(0);
  return v.has_value();
}

ClockSample timed_window(std::uint64_t iters, const ThreadCycleCounter* counter) {
  ClockSample s;
  std::uint64_t c0 = 0, c1 = 0;
  bool counted = counter != nullptr;
  if (counted) counted = read_into(*counter, c0);
  const double t0 = thread_cpu_s();
  s.adds = add_chain(iters);
  s.cpu_s = thread_cpu_s() - t0;
  if (counted && read_into(*counter, c1) && c1 >= c0) s.cycles = c1 - c0;
  return s;
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

ClockReading clock_from_samples(const std::vector<ClockSample>& samples, const std::string& no_counter_reason) {
  if (samples.empty()) throw std::invalid_argument("no clock windows");
  const bool counted = std::all_of(samples.begin(), samples.end(), [](const auto& s) { return s.cycles.has_value(); });
  std::vector<double> ghz;
  for (const auto& s : samples) {
    if (!(s.cpu_s > 0)) throw std::invalid_argument("a clock window took no CPU time");
    ghz.push_back(double(counted ? *s.cycles : s.adds) / s.cpu_s / 1e9);
  }
  ClockReading r;
  r.ghz = median_of(ghz);
  const std::string windows = "0.5 s warm-up, median of " + std::to_string(samples.size()) + " windows";
  if (counted) {
    r.method = "cycles";
    r.detail = "core cycles (perf PERF_COUNT_HW_CPU_CYCLES) per thread CPU time, " + windows;
  } else {
    r.method = "add-chain";
    r.detail = "add-chain cycles per thread CPU time, " + windows + "; no cycles counter: " +
               (no_counter_reason.empty() ? "a counter read failed or was multiplexed" : no_counter_reason);
  }
  return r;
}

ThreadCycleCounter::~ThreadCycleCounter() {
  if (fd_ >= 0) ::close(fd_);
}

// User-space cycles only: the chain runs there, and perf_event_paranoid 2 (the default) still
// allows it for an unprivileged rank.
std::string ThreadCycleCounter::open() {
  perf_event_attr a{};
  a.size = sizeof a;
  a.type = PERF_TYPE_HARDWARE;
  a.config = PERF_COUNT_HW_CPU_CYCLES;
  a.exclude_kernel = 1;
  a.exclude_hv = 1;
  a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  const long fd = ::syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
  if (fd < 0) return std::string("perf_event_open(PERF_COUNT_HW_CPU_CYCLES): ") + std::strerror(errno);
  fd_ = static_cast<int>(fd);
  return "";
}

std::optional<std::uint64_t> ThreadCycleCounter::read() const {
  std::uint64_t v[3] = {0, 0, 0};  // value, time enabled, time running
  if (fd_ < 0 || ::read(fd_, v, sizeof v) != static_cast<ssize_t>(sizeof v)) return std::nullopt;
  if (v[2] != v[1]) return std::nullopt;  // shared the PMU with other events: the count is a guess
  return v[0];
}

ClockReading measure_thread_clock(bool use_counter) {
  ThreadCycleCounter counter;
  std::string reason = use_counter ? counter.open() : "turned off (HPCSENS_CLOCK_COUNTER=off)";
  const ThreadCycleCounter* c = reason.empty() ? &counter : nullptr;
  const auto probe = timed_window(2'000'000, nullptr);
  const double ghz0 = double(probe.adds) / std::max(probe.cpu_s, 1e-6) / 1e9;
  const auto iters_for = [&](double seconds) { return std::uint64_t(seconds * ghz0 * 1e9 / 8) + 1; };
  timed_window(iters_for(0.5), nullptr);  // turbo ramp-up and P-state transitions settle
  std::vector<ClockSample> samples;
  for (int t = 0; t < 5; ++t) samples.push_back(timed_window(iters_for(0.2), c));
  return clock_from_samples(samples, reason);
}

}  // namespace hpcsens::sweep
