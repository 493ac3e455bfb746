#include "preload/account/timeline.h"

#include <algorithm>

#include "preload/account/clock.h"

namespace hpcsens::preload {

Timeline g_timeline;
const ThreadCounts* g_timeline_thread = nullptr;

void Timeline::start(std::uint64_t t0, int shift) noexcept {
  std::fill(std::begin(bins_), std::end(bins_), TimelineBin{});
  t0_ = t0;
  end_ = ~std::uint64_t{0};
  shift_ = shift;
  marks_ = 0;
  marks_dropped_ = 0;
  last_region_ = -2;
}

void Timeline::stop(std::uint64_t t_end) noexcept {
  end_ = std::max(t_end, t0_);
  while (((end_ - t0_) >> shift_) >= static_cast<std::uint64_t>(kTimelineBins)) coarsen();
}

int Timeline::used_bins() const noexcept {
  const std::uint64_t span = end_ == ~std::uint64_t{0} ? 0 : end_ - t0_;
  const std::uint64_t width = std::uint64_t{1} << shift_;
  const std::uint64_t n = (span + width - 1) / width;
  return static_cast<int>(std::clamp<std::uint64_t>(n, 1, kTimelineBins));
}

// Space-Saving: the call's own entry, else a free one, else the smallest is taken over (its
// ticks kept: the new call's count is then an upper bound, as the algorithm defines it).
void Timeline::add_to_bin(TimelineBin& b, int id, bool io, std::uint64_t ticks) noexcept {
  if (io) {
    b.io += ticks;
    return;
  }
  b.mpi += ticks;
  int smallest = 0;
  for (int k = 0; k < kTimelineTop; ++k) {
    if (b.top_call[k] == id || b.top_call[k] == kNoCall) {
      b.top_call[k] = static_cast<std::uint16_t>(id);
      b.top_ticks[k] += ticks;
      return;
    }
    if (b.top_ticks[k] < b.top_ticks[smallest]) smallest = k;
  }
  b.top_call[smallest] = static_cast<std::uint16_t>(id);
  b.top_ticks[smallest] += ticks;
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
    // The second bin's entries go in as calls of their own, with their ticks (their sum is
    // the bin's MPI time: every add lands in exactly one entry).
    for (int k = 0; k < kTimelineTop; ++k)
      if (second.top_call[k] != kNoCall) add_to_bin(merged, second.top_call[k], false, second.top_ticks[k]);
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
  g_timeline.start(now_ticks(), initial_timeline_shift(tsc));
  g_timeline_thread = owner;
}

void timeline_end() noexcept { g_timeline.stop(now_ticks()); }

int initial_timeline_shift(bool tsc) noexcept { return tsc ? 21 : 20; }

}  // namespace hpcsens::preload
