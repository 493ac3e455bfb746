#pragma once
// The ranks' memory (ranks[].memory, docs/record-format.md) summed while the record is scanned:
// each rank's peak resident set, and per host the sum of its ranks' peaks beside the host's
// memory, as Linaro Performance Reports shows "peak process memory" and "peak node memory".
#include <cstdint>
#include <map>
#include <string>

namespace hpcsens::report {

struct HostMemory {
  std::uint64_t ranks = 0;
  std::int64_t peak_sum_kib = 0;  // the sum of its ranks' peaks (each rank's own high-water mark)
  std::int64_t total_kib = 0;     // MemTotal, the most any of its ranks saw (0: not known)
};

struct MemoryTotals {
  std::map<std::string, HostMemory> hosts;
  std::uint64_t ranks = 0;  // ranks with a peak
  double peak_sum_kib = 0;  // over all ranks, for the mean
  std::int64_t max_kib = -1, min_kib = -1;
  std::int64_t max_rank = -1, min_rank = -1;
  // One rank's peak (< 0: none, ignored) on `host`, whose MemTotal it saw as `total_kib` (<= 0: not known).
  void add_rank(const std::string& host, std::int64_t rank, std::int64_t peak_kib, std::int64_t total_kib) {
    if (peak_kib < 0) return;
    HostMemory& h = hosts[host];
    ++h.ranks;
    h.peak_sum_kib += peak_kib;
    if (total_kib > h.total_kib) h.total_kib = total_kib;
    ++ranks;
    peak_sum_kib += static_cast<double>(peak_kib);
    if (max_kib < 0 || peak_kib > max_kib) max_kib = peak_kib, max_rank = rank;
    if (min_kib < 0 || peak_kib < min_kib) min_kib = peak_kib, min_rank = rank;
  }
};

}  // namespace hpcsens::report
