#include "preload/accounting.h"

#include <algorithm>

namespace hpcsens::preload {

constinit thread_local ThreadState t_state __attribute__((tls_model("initial-exec")));
std::atomic<bool> g_counting{false};

CallTotals g_overflow_slot;

namespace {

// Zero-initialised static storage: no constructor runs, pages are touched only when used.
CallTotals g_slots[kMaxThreadSlots];
std::atomic<int> g_next_slot{0};
std::atomic<int> g_overflow_threads{0};

}  // namespace

CallTotals* claim_thread_slot() noexcept {
  const int i = g_next_slot.fetch_add(1, std::memory_order_relaxed);
  if (i < kMaxThreadSlots) return &g_slots[i];
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
  for (int i = 0; i < used; ++i) add(g_slots[i]);
  add(g_overflow_slot);
  return out;
}

int threads_seen() noexcept {
  return std::min(g_next_slot.load(std::memory_order_relaxed), kMaxThreadSlots) +
         g_overflow_threads.load(std::memory_order_relaxed);
}

void reset_accounting() noexcept {
  for (auto& s : g_slots) s = CallTotals{};
  g_overflow_slot = CallTotals{};
}

}  // namespace hpcsens::preload
