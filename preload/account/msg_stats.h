#pragma once
// Message-size histograms and point-to-point partners, kept in fixed per-thread storage.
//
// Why this shape: both are updated on the hot path of every message-carrying call, so they may
// cost a few adds and nothing else: no allocation, no lock, no system call. A histogram is an
// array of log2 buckets per call; partners live in a fixed open-addressing table keyed by world
// rank, and traffic to ranks beyond its capacity goes to one "untracked" bucket (counted, so the
// loss is visible). Bounded memory whatever the job size.
#include <array>
#include <bit>
#include <cstdint>

#include "call_table.h"

namespace hpcsens::preload {

// Bucket 0: 0-byte messages; bucket i >= 1: sizes in [2^(i-1), 2^i). The last bucket also takes
// everything larger (2^46 bytes and up: 64 TiB, never a single message in practice).
inline constexpr int kHistBuckets = 48;
[[gnu::always_inline]] inline int size_bucket(std::uint64_t bytes) noexcept {
  const int b = std::bit_width(bytes);
  return b < kHistBuckets ? b : kHistBuckets - 1;
}

using Histogram = std::array<std::uint64_t, kHistBuckets>;
using MsgHistograms = std::array<Histogram, kNumHistCalls>;

// All-zero when empty, so the per-thread slots stay in .bss (never-touched pages cost no memory;
// a non-zero initialiser would put megabytes of slots into .data).
struct PartnerEntry {
  std::uint32_t key = 0;  // world rank + 1; 0: empty
  std::uint64_t bytes = 0;
  std::uint64_t messages = 0;
  std::int32_t rank() const { return static_cast<std::int32_t>(key) - 1; }
};

// Capacity per thread: 24 KiB. The record keeps the top kReportedPartners of the merged table.
inline constexpr int kPartnerSlots = 1024;
inline constexpr int kReportedPartners = 64;

struct PartnerTable {
  std::array<PartnerEntry, kPartnerSlots> entries{};
  std::uint64_t untracked_bytes = 0;     // traffic to ranks that found the table full
  std::uint64_t untracked_messages = 0;

  // Linear probing from a multiplicative hash; a full table sends the traffic to "untracked".
  [[gnu::always_inline]] void add(std::int32_t rank, std::uint64_t bytes) noexcept {
    const std::uint32_t key = static_cast<std::uint32_t>(rank) + 1;
    std::uint32_t i = (static_cast<std::uint32_t>(rank) * 2654435761u) % kPartnerSlots;
    for (int probe = 0; probe < kPartnerSlots; ++probe) {
      PartnerEntry& e = entries[i];
      if (e.key == key || e.key == 0) [[likely]] {
        e.key = key;
        e.bytes += bytes;
        ++e.messages;
        return;
      }
      i = (i + 1) % kPartnerSlots;
    }
    untracked_bytes += bytes;
    ++untracked_messages;
  }
};

// Non-blocking receives posted by this thread and not yet completed (recv_completion.h).
inline constexpr int kPendingSlots = 512;

// No default member initializers: a Completion holds kMaxCompletions of them on the stack of
// every Wait/Test call, and zeroing them there would cost more than the call (the thread-local
// table is zero-initialised static storage anyway).
struct PendingRecv {
  std::uintptr_t key;
  std::uint64_t posted;
  std::uint16_t call, hist;
  bool used;
};
struct PendingTable {
  PendingRecv entries[kPendingSlots];
  int count = 0;
};

}  // namespace hpcsens::preload
