#pragma once
// A timeline per rank, as Linaro MAP keeps one: kTimelineBins fixed bins over the run, each with
// the MPI and I/O time that fell into it (compute is the rest of the bin) and the MPI calls that
// took most of it. When the run outlasts the bins, adjacent pairs are merged and the bin width
// doubles, so the whole run always fits in the same memory (bins end between 1/256 and 1/128 of
// the run wide).
//
// Hot path: one compare. The wrapper has already added the call's ticks to its thread's per-call
// totals (accounting.h), so a call that ends inside the current bin needs nothing more: the bin's
// time per call is what those totals gained while it was current. Only a call that ends past the
// bin (the first one of each bin: ~256-512 per run, at most one per ~1 ms) takes the slow path,
// which closes the bin from the totals' gains and splits that one call across the bins it spans
// exactly. The bound to compare with is a thread-local word (ThreadState::timeline_limit), finite
// only on the thread that called MPI_Init, so other threads (whose MPI time is in the per-call
// totals, not here) pay the same compare. No clock read, allocation, lock or system call.
// Measured: adding each call to its bin in the wrapper cost ~4 ns per MPI_Test and ~400 bytes of
// code in each of the ~2,300 wrappers (docs/methodology.md, "Overhead").
//
// A bin closed at the finest width knows every call's exact time in it, so its kTimelineTop
// entries are the heaviest calls exactly. Merged bins keep the heaviest of their halves' entries;
// a call that was not among the top of either half is not seen there.
//
// Phase marks (starts of MPI_Pcontrol phases and of outermost regions on that thread) are kept
// in a fixed list; a mark repeating the last one (a loop re-entering its region) is not added
// again, and marks beyond the list are counted as dropped.
#include <cstdint>

#include "call_table.h"
#include "preload/account/accounting.h"

namespace hpcsens::preload {

inline constexpr int kTimelineBins = 256;
inline constexpr int kTimelineTop = 4;
inline constexpr int kTimelineMarks = 128;
inline constexpr std::uint16_t kNoCall = 0xffff;

struct TimelineBin {
  std::uint64_t mpi = 0, io = 0;  // ticks
  // The heaviest MPI calls of the bin and their ticks (the rest of `mpi` is other calls').
  std::uint16_t top_call[kTimelineTop] = {kNoCall, kNoCall, kNoCall, kNoCall};
  std::uint64_t top_ticks[kTimelineTop] = {};
};

struct TimelineMark {
  std::uint64_t tick = 0;
  int region = -1;  // index in regions.h's name table
};

inline bool is_io_category(Category c) noexcept {
  static_assert(Category::io_meta < Category::stdio_write && Category::stdio_write < Category::other);
  return c >= Category::io_meta && c <= Category::stdio_write;
}

class Timeline {
 public:
  // Starts at tick `t0` with bins of 2^shift ticks; forgets everything before. `totals` are the
  // owner thread's per-call ticks (null: only add() is used, as in tests of the splitting).
  void start(std::uint64_t t0, int shift, const CallTotals* totals = nullptr) noexcept;
  // A call of `elapsed` ticks begun at `start` has just been added to the totals: the slow path
  // of the hot-path compare `start + elapsed > limit()`.
  void cross(int id, std::uint64_t start, std::uint64_t elapsed) noexcept;
  // cross() when due; what the hook does, for callers without the thread-local bound (tests).
  void call_ended(int id, std::uint64_t start, std::uint64_t elapsed) noexcept {
    if (start + elapsed > limit_) cross(id, start, elapsed);
  }
  // Adds a call of `elapsed` ticks begun at `start` to the bins it spans, split exactly (before
  // t0 or after stop: clipped). Not through the totals: cross() uses it for the call it splits.
  void add(int id, std::uint64_t start, std::uint64_t elapsed) noexcept;
  void mark(std::uint64_t tick, int region) noexcept;
  // The end of the run (t2): the current bin is closed; later calls are not added.
  void stop(std::uint64_t t_end) noexcept;

  // A call ending after this tick is cross()ed: the end of the current bin (0 until a call ends
  // after t0; the largest tick after stop).
  std::uint64_t limit() const noexcept { return limit_; }
  std::uint64_t t0() const noexcept { return t0_; }
  std::uint64_t end() const noexcept { return end_; }
  int shift() const noexcept { return shift_; }
  // Bins holding some of [t0, end) (at least 1 once started).
  int used_bins() const noexcept;
  const TimelineBin& bin(int i) const noexcept { return bins_[i]; }
  // The dominant MPI call of bin i, kNoCall for none.
  std::uint16_t top_call(int i) const noexcept;
  int marks() const noexcept { return marks_; }
  const TimelineMark& mark_at(int i) const noexcept { return mark_list_[i]; }
  std::uint64_t marks_dropped() const noexcept { return marks_dropped_; }

 private:
  void coarsen() noexcept;
  void close_current() noexcept;
  void add_to_bin(TimelineBin& b, int id, bool io, std::uint64_t ticks) noexcept;
  static void offer_top(TimelineBin& b, int id, std::uint64_t ticks) noexcept;

  TimelineBin bins_[kTimelineBins];
  TimelineMark mark_list_[kTimelineMarks];
  std::uint64_t seen_[kNumCalls] = {};  // ticks of each call's total already in bins (or clipped)
  const CallTotals* totals_ = nullptr;
  std::uint64_t t0_ = 0, end_ = ~std::uint64_t{0};
  std::uint64_t limit_ = ~std::uint64_t{0};
  int current_ = 0;  // the bin the totals' gains belong to
  int shift_ = 0;
  int marks_ = 0;
  int last_region_ = -2;  // the last mark's region, kept or dropped
  std::uint64_t marks_dropped_ = 0;
};

// The process's timeline and the thread whose calls it holds (null: none yet, nothing added).
extern Timeline g_timeline;
extern const ThreadCounts* g_timeline_thread;

void timeline_cross(int id, std::uint64_t start, std::uint64_t elapsed) noexcept;
// The hook of every timed wrapper, after guard.record() (the header's comment says why this is all).
[[gnu::always_inline]] inline void timeline_call(int id, std::uint64_t start, std::uint64_t elapsed) noexcept {
  if (start + elapsed > t_state.timeline_limit) [[unlikely]] timeline_cross(id, start, elapsed);
}
// Marks a phase start from the MPI_Init thread (regions.cpp).
inline void timeline_mark(std::uint64_t tick, int region) noexcept {
  if (t_state.slot == g_timeline_thread && g_timeline_thread != nullptr) g_timeline.mark(tick, region);
}

// Starts the timeline now for `owner`'s calls (at t1), and ends it now (at t2); with it the
// sampler of resident memory (rss_sampler.h).
void timeline_begin(const ThreadCounts* owner, bool tsc) noexcept;
void timeline_end() noexcept;

// Bins about 1 ms wide at the start: 2^20 ns, or 2^21 TSC ticks (1-2 GHz TSC: 1-2 ms).
int initial_timeline_shift(bool tsc) noexcept;

}  // namespace hpcsens::preload
