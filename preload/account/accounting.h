#pragma once
// Hot-path accounting: per-thread, fixed-size counters indexed by call id.
//
// Why this shape: an intercepted call must cost a clock read and an add, nothing else (no lock,
// no allocation, no system call). Each thread claims one slot of a static pool the first time it
// is counted (one atomic increment) and then writes only to its own slot; the slots are summed
// once at MPI_Finalize. Threads beyond the pool share one overflow slot updated atomically.
// A thread-local depth makes nested calls (PMPI made by MPI itself, MPI-IO's own write(), our own
// finalize work) invisible, so nothing is counted twice.
#include <array>
#include <atomic>
#include <cstdint>

#include "call_table.h"
#include "preload/account/msg_stats.h"

namespace hpcsens::preload {

struct CallSlot {
  std::uint64_t count = 0;
  std::uint64_t ticks = 0;  // now_ticks() units; seconds come from TickClock at the end
  std::uint64_t bytes = 0;           // sent, or received for a receive
  std::uint64_t bytes_received = 0;  // what a call that also sends received (MPI_Sendrecv)
};

using CallTotals = std::array<CallSlot, kNumCalls>;

inline constexpr int kMaxThreadSlots = 64;

// Everything one thread counts: calls, message sizes, partners (each thread writes only its own).
struct ThreadCounts {
  CallTotals calls{};
  MsgHistograms hist{};
  PartnerTable partners{};
  PendingTable pending{};  // unused in the shared overflow slot
};

struct ThreadState {
  ThreadCounts* slot = nullptr;
  int depth = 0;
  // A call of this thread ending after this tick goes to the timeline's slow path (timeline.h);
  // never on threads other than the MPI_Init thread.
  std::uint64_t timeline_limit = ~std::uint64_t{0};
};

// initial-exec: a preloaded library gets static TLS, so a thread-local read is one %fs access
// instead of a __tls_get_addr call.
extern thread_local constinit ThreadState t_state __attribute__((tls_model("initial-exec")));
extern std::atomic<bool> g_counting;  // true between our init barrier and our finalize barrier

// The slot this thread writes to (claimed on first use).
ThreadCounts* claim_thread_slot() noexcept;
// This thread's slot, claimed now if it has none (the thread calling MPI_Init marks its own).
ThreadCounts* own_thread_slot() noexcept;
extern ThreadCounts g_overflow_slot;  // shared by threads beyond kMaxThreadSlots
inline bool is_overflow_slot(const ThreadCounts* slot) noexcept { return slot == &g_overflow_slot; }
void add_to_slot(ThreadCounts* slot, int id, std::uint64_t ticks, std::uint64_t bytes) noexcept;
void add_hist_to_slot(ThreadCounts* slot, int hist, std::uint64_t bytes) noexcept;
void add_partner_to_slot(ThreadCounts* slot, std::uint64_t bytes) noexcept;

// Sum of every thread's call counters. Call when no other thread is inside MPI (after finalize's
// barrier). Message statistics are merged by msg_report.h.
CallTotals merged_totals() noexcept;
// Every slot in use (the overflow slot last); for merging at finalize.
int used_slots(const ThreadCounts* out[], int capacity) noexcept;
// Threads that have claimed a slot (including the overflow slot users, counted once each).
int threads_seen() noexcept;
// Forget all counts (tests; MPI_Init happens once per process otherwise).
void reset_accounting() noexcept;

// Scope of one intercepted call. counting() is false when we are not between init and finalize
// or when this call is nested inside another intercepted call.
class Guard {
 public:
  [[gnu::always_inline]] Guard() noexcept : state_(&t_state) {
    counting_ = state_->depth == 0 && g_counting.load(std::memory_order_relaxed);
    ++state_->depth;
  }
  [[gnu::always_inline]] ~Guard() { --state_->depth; }
  Guard(const Guard&) = delete;
  Guard& operator=(const Guard&) = delete;

  bool counting() const noexcept { return counting_; }

  [[gnu::always_inline]] void record(int id, std::uint64_t ticks, std::uint64_t bytes) noexcept {
    ThreadCounts* slot = this_slot();
    if (is_overflow_slot(slot)) [[unlikely]] {
      add_to_slot(slot, id, ticks, bytes);
      return;
    }
    CallSlot& s = slot->calls[id];
    ++s.count;
    s.ticks += ticks;
    s.bytes += bytes;
  }
  // record() plus the message-size histogram `hist` of this call.
  [[gnu::always_inline]] void record_msg(int id, int hist, std::uint64_t ticks,
                                         std::uint64_t bytes) noexcept {
    record(id, ticks, bytes);
    ThreadCounts* slot = state_->slot;
    if (is_overflow_slot(slot)) [[unlikely]] {
      add_hist_to_slot(slot, hist, bytes);
      return;
    }
    ++slot->hist[hist][size_bucket(bytes)];
  }
  // What a call that sends (counted in its bytes) also received, apart: MPI_Sendrecv's size
  // histogram and bytes are what it sent.
  [[gnu::always_inline]] void add_received(int id, std::uint64_t bytes) noexcept {
    ThreadCounts* slot = this_slot();
    if (is_overflow_slot(slot)) [[unlikely]] {
      std::atomic_ref<std::uint64_t>(slot->calls[id].bytes_received)
          .fetch_add(bytes, std::memory_order_relaxed);
      return;
    }
    slot->calls[id].bytes_received += bytes;
  }
  // Bytes that arrive after the call that posted them (a non-blocking receive completing in a
  // Wait or Test): added to that call's bytes and histogram `hist`, its count unchanged.
  void add_bytes(int id, int hist, std::uint64_t bytes) noexcept {
    ThreadCounts* slot = this_slot();
    if (is_overflow_slot(slot)) [[unlikely]] {
      std::atomic_ref<std::uint64_t>(slot->calls[id].bytes)
          .fetch_add(bytes, std::memory_order_relaxed);
      add_hist_to_slot(slot, hist, bytes);
      return;
    }
    slot->calls[id].bytes += bytes;
    ++slot->hist[hist][size_bucket(bytes)];
  }
  // Point-to-point bytes sent to `world_rank` (negative: MPI_PROC_NULL or unknown, not counted).
  [[gnu::always_inline]] void partner(int world_rank, std::uint64_t bytes) noexcept {
    if (world_rank < 0) return;
    ThreadCounts* slot = this_slot();
    if (is_overflow_slot(slot)) [[unlikely]] {
      add_partner_to_slot(slot, bytes);
      return;
    }
    slot->partners.add(world_rank, bytes);
  }

 private:
  [[gnu::always_inline]] ThreadCounts* this_slot() noexcept {
    ThreadCounts* slot = state_->slot;
    if (slot == nullptr) [[unlikely]]
      slot = state_->slot = claim_thread_slot();
    return slot;
  }
  ThreadState* state_;
  bool counting_;
};

// Marks our own work (PAPI, record writing) so the wrappers do not count it.
class InternalScope {
 public:
  InternalScope() noexcept { ++t_state.depth; }
  ~InternalScope() { --t_state.depth; }
  InternalScope(const InternalScope&) = delete;
  InternalScope& operator=(const InternalScope&) = delete;
};

}  // namespace hpcsens::preload
