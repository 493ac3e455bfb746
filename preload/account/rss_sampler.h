#pragma once
// The rank's resident memory over the run, for the timeline's memory row (ranks[].timeline.rss_kib).
//
// Where the samples come from: the timeline has no tick of its own (a bin closes when the first
// call ends past it, inside that call's wrapper), reading RSS costs a system call (there is no
// vDSO for it), and the counter agent is absent with --events none and serves a whole node. So a
// thread of the preload samples: it reads /proc/self/statm (one pread on a descriptor opened at
// start) once per bin of its own, then sleeps a bin. Its bins start 2^20 ns wide and merge in
// pairs as the timeline's do (at most 256), so it wakes ~1,000 times in the first 0.25 s and about
// 256-512 times per doubling after (a 10-minute run: under 3,000 wakeups in all), never inside a
// wrapper. It blocks every signal (the program's handlers never run on it), calls no MPI and
// allocates nothing after its start. Started with the timeline (after the init barrier), stopped
// and joined at t2, when the stopping thread takes one last sample (so the last bin always has
// one); a thread that cannot be started leaves no samples (the record then has no rss_kib).
#include <cstdint>
#include <vector>

namespace hpcsens::preload {

inline constexpr int kRssBins = 256;

// The largest sample per bin, bins of 2^shift ns from the first; a sample beyond the last bin
// merges pairs first (as the timeline's bins). Pure; what the sampler thread fills.
class RssBins {
 public:
  void start(int shift) noexcept;
  void add(std::uint64_t ns_since_start, std::int64_t kib) noexcept;
  int shift() const noexcept { return shift_; }
  int used() const noexcept { return used_; }
  std::int64_t bin(int i) const noexcept { return kib_[i]; }  // -1: no sample in it

 private:
  std::int64_t kib_[kRssBins];
  int shift_ = 20, used_ = 0;
};

// The samples folded onto `bins` bins of `bin_s` seconds (the timeline's): per bin the largest
// sample whose bin's middle falls in it; a bin without one takes the previous bin's value (the
// first sample for bins before it). Empty when there is no sample at all.
std::vector<std::int64_t> fold_rss(const RssBins& samples, int bins, double bin_s);

// The process's sampler (start at the timeline's start, stop at its end; stop is idempotent and
// does nothing in a forked child), and its samples on the timeline's bins after stop.
void rss_sampler_start() noexcept;
void rss_sampler_stop() noexcept;
std::vector<std::int64_t> rss_timeline(int bins, double bin_s);
// Samples taken since the last start (tests wait for it).
int rss_sampler_samples() noexcept;

}  // namespace hpcsens::preload
