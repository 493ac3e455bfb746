#pragma once
// A timeline per rank, as Linaro MAP keeps one: kTimelineBins fixed bins over the run, each with
// the MPI and I/O time that fell into it (compute is the rest of the bin) and the MPI call that
// took most of it. When the run outlasts the bins, adjacent pairs are merged and the bin width
// doubles, so the whole run always fits in the same memory (bins end between 1/256 and 1/128 of
// the run wide).
//
// Hot path: a call is added with the start tick and duration the wrapper already measured, so
// no clock is read here; no allocation, no lock, no system call. Only the thread that called
// MPI_Init is drawn (its calls are what the rank's timeline shows; other threads' MPI time is in
// the per-call totals): the check is one thread-local compare. A call spanning several bins has
// its time split across them exactly.
//
// The dominant call of a bin comes from kTimelineTop (call, ticks) entries per bin kept as the
// Space-Saving algorithm does (Metwally et al. 2005): exact when a bin saw at most kTimelineTop
// distinct MPI calls, otherwise the heaviest call is still found whenever it holds more than a
// 1/kTimelineTop share of the bin's MPI time.
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
  // Starts at tick `t0` with bins of 2^shift ticks; forgets everything before.
  void start(std::uint64_t t0, int shift) noexcept;
  // Adds a call of `elapsed` ticks begun at `start` (before t0 or before stop: clipped).
  void add(int id, std::uint64_t start, std::uint64_t elapsed) noexcept;
  // add(), inline for the usual case: the call lies in one bin where it is a top entry already
  // (a loop calling MPI_Test, a ping-pong's Send and Recv); anything else goes to
  // add(). Measured: the out-of-line add() cost ~15 ns per MPI_Test over the preload without a
  // timeline. Only MPI calls are ever top entries, so the entry's call is not I/O.
  [[gnu::always_inline]] void add_fast(int id, std::uint64_t start, std::uint64_t elapsed) noexcept {
    const std::uint64_t rel = start - t0_;
    const std::uint64_t b = rel >> shift_;
    if (start >= t0_ && elapsed > 0 && b < static_cast<std::uint64_t>(kTimelineBins) &&
        ((rel + elapsed - 1) >> shift_) == b && start + elapsed <= end_) [[likely]] {
      TimelineBin& bin = bins_[b];
      for (int k = 0; k < kTimelineTop; ++k)
        if (bin.top_call[k] == id) {
          bin.mpi += elapsed;
          bin.top_ticks[k] += elapsed;
          return;
        }
    }
    add(id, start, elapsed);
  }
  void mark(std::uint64_t tick, int region) noexcept;
  // The end of the run (t2): later calls are not added.
  void stop(std::uint64_t t_end) noexcept;

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
  void add_to_bin(TimelineBin& b, int id, bool io, std::uint64_t ticks) noexcept;

  TimelineBin bins_[kTimelineBins];
  TimelineMark mark_list_[kTimelineMarks];
  std::uint64_t t0_ = 0, end_ = ~std::uint64_t{0};
  int shift_ = 0;
  int marks_ = 0;
  int last_region_ = -2;  // the last mark's region, kept or dropped
  std::uint64_t marks_dropped_ = 0;
};

// The process's timeline and the thread whose calls it holds (null: none yet, nothing added).
extern Timeline g_timeline;
extern const ThreadCounts* g_timeline_thread;

// The hook of every timed wrapper (after guard.record()): the slot test keeps other threads out.
[[gnu::always_inline]] inline void timeline_call(int id, std::uint64_t start, std::uint64_t elapsed) noexcept {
  if (t_state.slot == g_timeline_thread && g_timeline_thread != nullptr) [[likely]]
    g_timeline.add_fast(id, start, elapsed);
}
// Marks a phase start from the MPI_Init thread (regions.cpp).
inline void timeline_mark(std::uint64_t tick, int region) noexcept {
  if (t_state.slot == g_timeline_thread && g_timeline_thread != nullptr) g_timeline.mark(tick, region);
}

// Starts the timeline now for `owner`'s calls (at t1), and ends it now (at t2).
void timeline_begin(const ThreadCounts* owner, bool tsc) noexcept;
void timeline_end() noexcept;

// Bins about 1 ms wide at the start: 2^20 ns, or 2^21 TSC ticks (1-2 GHz TSC: 1-2 ms).
int initial_timeline_shift(bool tsc) noexcept;

}  // namespace hpcsens::preload
