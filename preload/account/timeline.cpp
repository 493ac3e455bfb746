#include "preload/account/timeline.h"

#include <algorithm>
#include <utility>

#include "preload/account/clock.h"
#include "preload/account/rss_sampler.h"

namespace hpcsens::preload {

Timeline g_timeline;
const ThreadCounts* g_timeline_thread = nullptr;

void Timeline::start(std::uint64_t t0, int shift, const CallTotals* totals) noexcept {
  std::fill(std::begin(bins_), std::end(bins_), TimelineBin{});
  totals_ = totals;
  for (int id = 0; id < kNumCalls; ++id) seen_[id] = totals ? (*totals)[id].ticks : 0;
  t0_ = t0;
  end_ = ~std::uint64_t{0};
  limit_ = 0;  // calls cross until one ends after t0: it may have begun before t0
  current_ = 0;
  shift_ = shift;
  marks_ = 0;
  marks_dropped_ = 0;
  last_region_ = -2;
}

// What the totals gained since the last close went into calls that began and ended inside the
// current bin: each call of a thread begins after the one before it ended, and the first call
// to end past a bin closes it. The bin's entries so far (a split call's part) are offered again
// with each call's gain, so the entries end as the exact heaviest calls of the bin.
void Timeline::close_current() noexcept {
  if (totals_ == nullptr) return;
  TimelineBin& b = bins_[current_];
  const TimelineBin before = b;
  std::fill(std::begin(b.top_call), std::end(b.top_call), kNoCall);
  std::fill(std::begin(b.top_ticks), std::end(b.top_ticks), 0);
  std::uint64_t kept[kTimelineTop];
  std::copy(std::begin(before.top_ticks), std::end(before.top_ticks), kept);
  for (int id = 0; id < kNumCalls; ++id) {
    const std::uint64_t gain = (*totals_)[id].ticks - seen_[id];
    std::uint64_t had = 0;
    for (int k = 0; k < kTimelineTop; ++k)
      if (before.top_call[k] == id) had = std::exchange(kept[k], 0);
    if (gain == 0 && had == 0) continue;
    seen_[id] += gain;
    if (is_io_category(kCalls[id].category)) {
      b.io += gain;
      continue;
    }
    b.mpi += gain;
    offer_top(b, id, gain + had);
  }
}

void Timeline::cross(int id, std::uint64_t start, std::uint64_t elapsed) noexcept {
  if (end_ != ~std::uint64_t{0}) return;  // stopped (by another thread: see timeline_cross)
  seen_[id] += elapsed;  // this call is split below, not taken from the gains
  close_current();
  add(id, start, elapsed);
  if (start + elapsed <= t0_) return;  // ended before the start: clipped whole
  const std::uint64_t last = start + elapsed - 1;
  while (((last - t0_) >> shift_) >= static_cast<std::uint64_t>(kTimelineBins)) coarsen();
  current_ = static_cast<int>((last - t0_) >> shift_);
  limit_ = t0_ + (static_cast<std::uint64_t>(current_ + 1) << shift_);
}

void Timeline::stop(std::uint64_t t_end) noexcept {
  close_current();
  end_ = std::max(t_end, t0_);
  limit_ = ~std::uint64_t{0};
  while (((end_ - t0_) >> shift_) >= static_cast<std::uint64_t>(kTimelineBins)) coarsen();
}

int Timeline::used_bins() const noexcept {
  const std::uint64_t span = end_ == ~std::uint64_t{0} ? 0 : end_ - t0_;
  const std::uint64_t width = std::uint64_t{1} << shift_;
  const std::uint64_t n = (span + width - 1) / width;
  return static_cast<int>(std::clamp<std::uint64_t>(n, 1, kTimelineBins));
}

void Timeline::add_to_bin(TimelineBin& b, int id, bool io, std::uint64_t ticks) noexcept {
  if (io) {
    b.io += ticks;
    return;
  }
  b.mpi += ticks;
  offer_top(b, id, ticks);
}

// The entries keep the heaviest calls offered: the call's own entry, else a free one, else the
// lightest entry if this call is heavier (the lighter call's time stays in the bin's `mpi`).
void Timeline::offer_top(TimelineBin& b, int id, std::uint64_t ticks) noexcept {
  int lightest = 0;
  for (int k = 0; k < kTimelineTop; ++k) {
    if (b.top_call[k] == id || b.top_call[k] == kNoCall) {
      b.top_call[k] = static_cast<std::uint16_t>(id);
      b.top_ticks[k] += ticks;
      return;
    }
    if (b.top_ticks[k] < b.top_ticks[lightest]) lightest = k;
  }
  if (ticks <= b.top_ticks[lightest]) return;
  b.top_call[lightest] = static_cast<std::uint16_t>(id);
  b.top_ticks[lightest] = ticks;
}

void Timeline::add(int id, std::uint64_t start, std::uint64_t elapsed) noexcept {
  std::uint64_t from = std::max(start, t0_);
  const std::uint64_t to = std::min(start + elapsed, end_);
  if (to <= from) return;
  while (((to - 1 - t0_) >> shift_) >= static_cast<std::uint64_t>(kTimelineBins)) [[unlikely]]
    coarsen();
  const bool io = is_io_category(kCalls[id].category);
  while (from < to) {
    const std::uint64_t b = (from - t0_) >> shift_;
    const std::uint64_t bin_end = t0_ + ((b + 1) << shift_);
    const std::uint64_t upto = std::min(to, bin_end);
    add_to_bin(bins_[b], id, io, upto - from);
    from = upto;
  }
}

void Timeline::coarsen() noexcept {
  for (int i = 0; i < kTimelineBins / 2; ++i) {
    TimelineBin merged = bins_[2 * i];
    const TimelineBin& second = bins_[2 * i + 1];
    merged.io += second.io;
    merged.mpi += second.mpi;
    for (int k = 0; k < kTimelineTop; ++k)
      if (second.top_call[k] != kNoCall) offer_top(merged, second.top_call[k], second.top_ticks[k]);
    bins_[i] = merged;
  }
  std::fill(bins_ + kTimelineBins / 2, bins_ + kTimelineBins, TimelineBin{});
  ++shift_;
}

std::uint16_t Timeline::top_call(int i) const noexcept {
  const TimelineBin& b = bins_[i];
  int best = -1;
  for (int k = 0; k < kTimelineTop; ++k)
    if (b.top_call[k] != kNoCall && (best < 0 || b.top_ticks[k] > b.top_ticks[best])) best = k;
  return best < 0 ? kNoCall : b.top_call[best];
}

void Timeline::mark(std::uint64_t tick, int region) noexcept {
  if (region == last_region_) return;
  last_region_ = region;
  if (marks_ == kTimelineMarks) {
    ++marks_dropped_;
    return;
  }
  mark_list_[marks_++] = {tick, region};
}

void timeline_begin(const ThreadCounts* owner, bool tsc) noexcept {
  g_timeline.start(now_ticks(), initial_timeline_shift(tsc), &owner->calls);
  g_timeline_thread = owner;
  t_state.timeline_limit = g_timeline.limit();  // MPI_Init's thread is the owner
  rss_sampler_start();  // the memory row's samples, from a thread of its own (rss_sampler.h)
}

// On the owner thread only (the bound lives in its thread-local state). A stop from another
// thread (a signal's partial record) leaves the owner's bound behind: its next call lands here,
// cross() does nothing, and the bound becomes the stopped timeline's (never again).
void timeline_cross(int id, std::uint64_t start, std::uint64_t elapsed) noexcept {
  g_timeline.cross(id, start, elapsed);
  t_state.timeline_limit = g_timeline.limit();
}

void timeline_end() noexcept {
  g_timeline.stop(now_ticks());
  rss_sampler_stop();
  if (t_state.slot == g_timeline_thread) t_state.timeline_limit = g_timeline.limit();
}

int initial_timeline_shift(bool tsc) noexcept { return tsc ? 21 : 20; }

}  // namespace hpcsens::preload
