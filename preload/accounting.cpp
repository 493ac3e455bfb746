#include "preload/accounting.h"

#include <algorithm>

namespace hpcsens::preload {

constinit thread_local ThreadState t_state __attribute__((tls_model("initial-exec")));
// Read by every counted call of every thread: on a cache line of its own, never next to counters
// that threads write.
alignas(64) std::atomic<bool> g_counting{false};

alignas(64) CallTotals g_overflow_slot;

namespace {

// One thread's counters, starting on a cache line of their own so that two threads never write
// to the same line (the last calls of one slot and the first of the next).
struct alignas(64) ThreadSlot {
  CallTotals totals;
};

// Zero-initialised static storage: no constructor runs, pages are touched only when used.
ThreadSlot g_slots[kMaxThreadSlots];
std::atomic<int> g_next_slot{0};
std::atomic<int> g_overflow_threads{0};

}  // namespace

CallTotals* claim_thread_slot() noexcept {
  const int i = g_next_slot.fetch_add(1, std::memory_order_relaxed);
  if (i < kMaxThreadSlots) return &g_slots[i].totals;
  g_overflow_threads.fetch_add(1, std::memory_order_relaxed);
  return &g_overflow_slot;
}

void add_to_slot(CallTotals* slot, int id, std::uint64_t ticks, std::uint64_t bytes) noexcept {
  CallSlot& s = (*slot)[id];
  std::atomic_ref<std::uint64_t>(s.count).fetch_add(1, std::memory_order_relaxed);
  std::atomic_ref<std::uint64_t>(s.ticks).fetch_add(ticks, std::memory_order_relaxed);
  std::atomic_ref<std::uint64_t>(s.bytes).fetch_add(bytes, std::memory_order_relaxed);
}

CallTotals merged_totals() noexcept {
  CallTotals out{};
  const int used = std::min(g_next_slot.load(std::memory_order_acquire), kMaxThreadSlots);
  auto add = [&out](const CallTotals& t) {
    for (int id = 0; id < kNumCalls; ++id) {
      out[id].count += t[id].count;
      out[id].ticks += t[id].ticks;
      out[id].bytes += t[id].bytes;
    }
  };
  for (int i = 0; i < used; ++i) add(g_slots[i].totals);
  add(g_overflow_slot);
  return out;
}

int threads_seen() noexcept {
  return std::min(g_next_slot.load(std::memory_order_relaxed), kMaxThreadSlots) +
         g_overflow_threads.load(std::memory_order_relaxed);
}

void reset_accounting() noexcept {
  for (auto& s : g_slots) s.totals = CallTotals{};
  g_overflow_slot = CallTotals{};
}

}  // namespace hpcsens::preload
