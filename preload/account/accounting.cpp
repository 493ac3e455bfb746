#include "preload/account/accounting.h"

#include <algorithm>

namespace hpcsens::preload {

constinit thread_local ThreadState t_state __attribute__((tls_model("initial-exec")));
// Read by every counted call of every thread: on a cache line of its own, never next to counters
// that threads write.
alignas(64) std::atomic<bool> g_counting{false};

alignas(64) ThreadCounts g_overflow_slot;

namespace {

// One thread's counters, starting on a cache line of their own so that two threads never write
// to the same line (the last calls of one slot and the first of the next).
struct alignas(64) ThreadSlot {
  ThreadCounts totals;
};

// Zero-initialised static storage: no constructor runs, pages are touched only when used.
ThreadSlot g_slots[kMaxThreadSlots];
std::atomic<int> g_next_slot{0};
std::atomic<int> g_overflow_threads{0};

}  // namespace

ThreadCounts* own_thread_slot() noexcept {
  if (t_state.slot == nullptr) t_state.slot = claim_thread_slot();
  return t_state.slot;
}

ThreadCounts* claim_thread_slot() noexcept {
  const int i = g_next_slot.fetch_add(1, std::memory_order_relaxed);
  if (i < kMaxThreadSlots) return &g_slots[i].totals;
  g_overflow_threads.fetch_add(1, std::memory_order_relaxed);
  return &g_overflow_slot;
}

void add_to_slot(ThreadCounts* slot, int id, std::uint64_t ticks, std::uint64_t bytes) noexcept {
  CallSlot& s = slot->calls[id];
  std::atomic_ref<std::uint64_t>(s.count).fetch_add(1, std::memory_order_relaxed);
  std::atomic_ref<std::uint64_t>(s.ticks).fetch_add(ticks, std::memory_order_relaxed);
  std::atomic_ref<std::uint64_t>(s.bytes).fetch_add(bytes, std::memory_order_relaxed);
}

void add_hist_to_slot(ThreadCounts* slot, int hist, std::uint64_t bytes) noexcept {
  std::atomic_ref<std::uint64_t>(slot->hist[hist][size_bucket(bytes)])
      .fetch_add(1, std::memory_order_relaxed);
}

void add_partner_to_slot(ThreadCounts* slot, std::uint64_t bytes) noexcept {
  // Threads beyond the pool cannot share a probing table without a lock: their traffic is
  // counted, but without the partner's rank.
  std::atomic_ref<std::uint64_t>(slot->partners.untracked_bytes)
      .fetch_add(bytes, std::memory_order_relaxed);
  std::atomic_ref<std::uint64_t>(slot->partners.untracked_messages)
      .fetch_add(1, std::memory_order_relaxed);
}

int used_slots(const ThreadCounts* out[], int capacity) noexcept {
  const int used = std::min(g_next_slot.load(std::memory_order_acquire), kMaxThreadSlots);
  int n = 0;
  for (int i = 0; i < used && n < capacity; ++i) out[n++] = &g_slots[i].totals;
  if (n < capacity) out[n++] = &g_overflow_slot;
  return n;
}

CallTotals merged_totals() noexcept {
  CallTotals out{};
  const int used = std::min(g_next_slot.load(std::memory_order_acquire), kMaxThreadSlots);
  auto add = [&out](const CallTotals& t) {
    for (int id = 0; id < kNumCalls; ++id) {
      out[id].count += t[id].count;
      out[id].ticks += t[id].ticks;
      out[id].bytes += t[id].bytes;
      out[id].bytes_received += t[id].bytes_received;
    }
  };
  for (int i = 0; i < used; ++i) add(g_slots[i].totals.calls);
  add(g_overflow_slot.calls);
  return out;
}

int threads_seen() noexcept {
  return std::min(g_next_slot.load(std::memory_order_relaxed), kMaxThreadSlots) +
         g_overflow_threads.load(std::memory_order_relaxed);
}

void reset_accounting() noexcept {
  // Only the slots in use: touching all of them would make their pages resident.
  const int used = std::min(g_next_slot.load(std::memory_order_relaxed), kMaxThreadSlots);
  for (int i = 0; i < used; ++i) g_slots[i].totals = ThreadCounts{};
  g_overflow_slot = ThreadCounts{};
}

}  // namespace hpcsens::preload
