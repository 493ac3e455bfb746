#pragma once
// The rank's memory, read once at finalize (never on a counted path): its peak resident set
// (VmHWM), its resident set then (VmRSS) and its node's memory (MemTotal), for the record's
// ranks[].memory (docs/record-format.md) and the report's per-rank and per-node peaks.
//
// VmHWM, not getrusage's ru_maxrss: both are the kernel's high-water mark of this process's
// resident pages, but ru_maxrss also keeps the peak of the image the process exec'd from (the
// launcher's forked copy), so a small rank started by a large daemon would report the daemon's
// size. Either counts every resident page of the process, the preload's own included.
#include <cstdint>
#include <string_view>

#include <nlohmann/json.hpp>

namespace hpcsens::preload {

// The number of KiB after `key` ("VmHWM:") at the start of a line of a /proc status-like `text`
// ("VmHWM:\t  123456 kB"), or -1 when no such line holds a number.
std::int64_t kib_field(std::string_view text, std::string_view key) noexcept;

struct MemoryNow {
  std::int64_t peak_rss_kib = -1, rss_kib = -1, node_total_kib = -1;  // -1: not given
};

// The three values, read with open/read/close into a stack buffer only: async-signal-safe, so the
// partial record a signal handler writes carries them too (rank_record/signal_partial.cpp).
MemoryNow read_memory_now() noexcept;

// {"peak_rss_kib", "rss_kib", "node_total_kib"}; a value the system cannot give is left out.
nlohmann::json memory_json();

}  // namespace hpcsens::preload
