#pragma once
// The calibrator's core-clock measurement. Where the thread can count its own core cycles
// (perf_event_open PERF_COUNT_HW_CPU_CYCLES, counting only while the thread runs) the clock is
// cycles over the thread's CPU time: no assumption about the core's pipeline. Where it cannot
// (no PMU, a VM, perf_event_paranoid too strict) it falls back to a chain of dependent register
// adds, one per cycle on current x86 and Arm cores, over the same CPU time. Which one was used is
// recorded (config.cpu_clock_method), with the reason for a fallback.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hpcsens::sweep {

// One timed window of the add chain: thread CPU seconds, adds done, and the core cycles the
// thread's counter saw over the window where one is open and was never multiplexed.
struct ClockSample {
  double cpu_s = 0;
  std::uint64_t adds = 0;
  std::optional<std::uint64_t> cycles;
};

struct ClockReading {
  double ghz = 0;
  std::string method;  // "cycles" or "add-chain"
  std::string detail;  // how, and for "add-chain" why the counter was not used
};

// Median over windows of cycles / CPU time when every window has a cycle count, else of adds /
// CPU time; `no_counter_reason` explains the fallback. Pure, for tests. Throws
// std::invalid_argument on no samples or a window without CPU time.
ClockReading clock_from_samples(const std::vector<ClockSample>& samples, const std::string& no_counter_reason);

// The thread's own core-cycle counter. open() returns "" when counting works, else the reason.
class ThreadCycleCounter {
 public:
  ThreadCycleCounter() = default;
  ThreadCycleCounter(const ThreadCycleCounter&) = delete;
  ThreadCycleCounter& operator=(const ThreadCycleCounter&) = delete;
  ~ThreadCycleCounter();
  std::string open();
  // Cycles so far; nullopt when the read fails or the counter was multiplexed off the PMU.
  std::optional<std::uint64_t> read() const;

 private:
  int fd_ = -1;
};

// Runs the measurement on the calling thread: 0.5 s warm-up, then five 0.2 s windows. With
// `use_counter` false the counter is not tried (HPCSENS_CLOCK_COUNTER=off in the calibrator).
ClockReading measure_thread_clock(bool use_counter);

}  // namespace hpcsens::sweep
