#include "preload/interpose/persistent_sends.h"

#include <atomic>

#include "preload/account/net_delay.h"
#include "preload/real/mpi_abi.h"
#include "preload/real/request_key.h"

namespace hpcsens::preload {
namespace {

struct SendEntry {
  std::atomic<std::uintptr_t> key{0};  // 0: free
  std::atomic<bool> live{false};
  std::uint16_t call = 0, hist = 0;
  std::int32_t world_rank = -1;
  bool to_proc_null = false;
  std::uint64_t bytes = 0;
};
SendEntry g_table[kPersistentSlots];
std::atomic<int> g_live{0};  // entries ever claimed; 0: every start returns at once
std::atomic<std::uint64_t> g_drops{0};

MPI_Request c_request(const void* f) { return abi::request_f2c(*static_cast<const MPI_Fint*>(f)); }

// The entry of `key`; claimed for it when `claim` and a free slot is on its probe path.
SendEntry* lookup(std::uintptr_t key, bool claim) {
  if (key == 0) return nullptr;
  unsigned i = request_home(key, kPersistentSlots);
  for (unsigned n = 0; n < kPersistentSlots; i = (i + 1) % kPersistentSlots, ++n) {
    std::uintptr_t k = g_table[i].key.load(std::memory_order_acquire);
    if (k == key) return &g_table[i];
    if (k != 0) continue;
    if (!claim) return nullptr;
    if (g_table[i].key.compare_exchange_strong(k, key, std::memory_order_acq_rel)) {
      g_live.fetch_add(1, std::memory_order_relaxed);
      return &g_table[i];
    }
    if (k == key) return &g_table[i];  // another thread claimed it for the same handle
  }
  return nullptr;
}

// The persistent send `request` names, or null (not one, or freed).
const SendEntry* live_send(const MPI_Request* request) {
  const SendEntry* e = lookup(request_key(request), false);
  return e != nullptr && e->live.load(std::memory_order_acquire) ? e : nullptr;
}

// Each request of a Fortran start (`count` null: one), as a C handle.
template <class Fn>
void each_fortran_request(const void* count, const void* requests, Fn&& fn) {
  const auto* f = static_cast<const MPI_Fint*>(requests);
  const int n = count == nullptr ? 1 : *static_cast<const MPI_Fint*>(count);
  for (int i = 0; i < n; ++i) {
    const MPI_Request c = abi::request_f2c(f[i]);
    fn(&c);
  }
}

void start_one(Guard& guard, const MPI_Request* request) {
  const SendEntry* e = live_send(request);
  if (e == nullptr) return;
  guard.add_bytes(e->call, e->hist, e->bytes);
  guard.partner(e->world_rank, e->bytes);
}

// The persistent sends among the requests of one start: their messages, delayed together.
struct StartedSends {
  double messages = 0, bytes = 0;
  void add(const MPI_Request* request) {
    const SendEntry* e = live_send(request);
    if (e == nullptr || e->to_proc_null) return;
    if (net_stays_on_node(e->world_rank)) return;
    messages += 1;
    bytes += static_cast<double>(e->bytes);
  }
  void delay(std::uint64_t start) const {
    if (messages > 0) net_delay_spin(start, messages, bytes);
  }
};

}  // namespace

void remember_send(const MPI_Request* request, int call, int hist, int world_rank,
                   std::uint64_t bytes, bool to_proc_null) noexcept {
  SendEntry* e = request ? lookup(request_key(request), true) : nullptr;
  if (e == nullptr) {
    g_drops.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  e->call = static_cast<std::uint16_t>(call);
  e->hist = static_cast<std::uint16_t>(hist);
  e->world_rank = world_rank;
  e->to_proc_null = to_proc_null;
  e->bytes = bytes;
  e->live.store(true, std::memory_order_release);
}

void remember_send_f(const void* request, int call, int hist, int world_rank,
                     std::uint64_t bytes, bool to_proc_null) noexcept {
  if (request == nullptr || !pmpi::handles().resolved) {
    g_drops.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  const MPI_Request c = c_request(request);
  remember_send(&c, call, hist, world_rank, bytes, to_proc_null);
}

void forget_send(const MPI_Request* request) noexcept {
  if (request == nullptr || g_live.load(std::memory_order_relaxed) == 0) return;
  if (SendEntry* e = lookup(request_key(request), false)) e->live.store(false, std::memory_order_release);
}

void forget_send_f(const void* request) noexcept {
  if (request == nullptr || g_live.load(std::memory_order_relaxed) == 0) return;
  const MPI_Request c = c_request(request);
  forget_send(&c);
}

void delay_starts(std::uint64_t start, int count, const MPI_Request requests[]) noexcept {
  if (g_live.load(std::memory_order_relaxed) == 0 || requests == nullptr) return;
  StartedSends sends;
  for (int i = 0; i < count; ++i) sends.add(&requests[i]);
  sends.delay(start);
}

void delay_starts_f(std::uint64_t start, const void* count, const void* requests) noexcept {
  if (g_live.load(std::memory_order_relaxed) == 0 || requests == nullptr) return;
  StartedSends sends;
  each_fortran_request(count, requests, [&](const MPI_Request* r) { sends.add(r); });
  sends.delay(start);
}

void started(Guard& guard, int count, const MPI_Request requests[]) noexcept {
  if (g_live.load(std::memory_order_relaxed) == 0 || requests == nullptr) [[likely]]
    return;
  for (int i = 0; i < count; ++i) start_one(guard, &requests[i]);
}

void started_f(Guard& guard, const void* count, const void* requests) noexcept {
  if (g_live.load(std::memory_order_relaxed) == 0 || requests == nullptr) return;
  each_fortran_request(count, requests, [&](const MPI_Request* r) { start_one(guard, r); });
}

std::uint64_t persistent_drops() noexcept { return g_drops.load(std::memory_order_relaxed); }

void reset_persistent_sends() noexcept {
  for (SendEntry& e : g_table) {
    e.key.store(0, std::memory_order_relaxed);
    e.live.store(false, std::memory_order_relaxed);
  }
  g_live.store(0, std::memory_order_relaxed);
  g_drops.store(0, std::memory_order_relaxed);
}

}  // namespace hpcsens::preload
