#include "preload/interpose/recv_completion.h"

#include <atomic>

#include "preload/real/mpi_abi.h"
#include "preload/real/request_key.h"
#include "preload/interpose/wrapper_support.h"

namespace hpcsens::preload {
namespace {

// The pending receives live in the thread's accounting slot (static storage reached through
// the one initial-exec thread-local pointer): a thread-local table of their own would not fit
// the static TLS space a dlopen'ed library may use.
PendingTable* pending_table() {
  ThreadCounts* slot = t_state.slot;
  return slot == nullptr || is_overflow_slot(slot) ? nullptr : &slot->pending;
}
PendingTable g_none;  // count 0 forever: threads without a table of their own
PendingTable& table() {
  PendingTable* t = pending_table();
  return t ? *t : g_none;
}
std::atomic<std::uint64_t> g_fallbacks{0};

std::uintptr_t key_of(const MPI_Request* r) { return request_key(r); }
unsigned home(std::uintptr_t key) { return request_home(key, kPendingSlots); }

int find(std::uintptr_t key) {
  PendingTable& t = table();
  for (unsigned i = home(key), n = 0; n < kPendingSlots; i = (i + 1) % kPendingSlots, ++n) {
    if (!t.entries[i].used) return -1;
    if (t.entries[i].key == key) return static_cast<int>(i);
  }
  return -1;
}

// Linear-probing removal that shifts later entries back, so lookups never need tombstones.
void erase(int slot) {
  PendingTable& t = table();
  unsigned hole = static_cast<unsigned>(slot);
  t.entries[hole].used = false;
  --t.count;
  for (unsigned i = (hole + 1) % kPendingSlots; t.entries[i].used; i = (i + 1) % kPendingSlots) {
    const unsigned h = home(t.entries[i].key);
    // Move entry i into the hole if its home is not strictly between hole and i (cyclically).
    const bool between = hole <= i ? (hole < h && h <= i) : (hole < h || h <= i);
    if (!between) {
      t.entries[hole] = t.entries[i];
      t.entries[i].used = false;
      hole = i;
    }
  }
}

std::uint64_t received(const MPI_Status* status, std::uint64_t posted) {
  int n = MPI_UNDEFINED;
  if (status == nullptr ||
      pmpi::Get_count.get()(status, pmpi::handles().byte, &n) != MPI_SUCCESS || n == MPI_UNDEFINED ||
      n < 0)
    return posted;
  return static_cast<std::uint64_t>(n);
}

}  // namespace

std::uint64_t remember_recv(const MPI_Request* request, std::uint64_t posted, int call,
                            int hist) noexcept {
  if (t_state.slot == nullptr) t_state.slot = claim_thread_slot();
  PendingTable* tp = pending_table();
  if (request == nullptr || tp == nullptr || tp->count >= kPendingSlots - 1) {
    g_fallbacks.fetch_add(1, std::memory_order_relaxed);
    return posted;
  }
  PendingTable& t = *tp;
  const std::uintptr_t key = key_of(request);
  unsigned i = home(key);
  while (t.entries[i].used && t.entries[i].key != key) i = (i + 1) % kPendingSlots;
  if (!t.entries[i].used) ++t.count;
  t.entries[i] = PendingRecv{key, posted, static_cast<std::uint16_t>(call),
                             static_cast<std::uint16_t>(hist), true};
  return 0;
}

std::uint64_t recv_fallbacks() noexcept {
  // Only this thread's table is visible here (the finalizing thread, usually the main one).
  return g_fallbacks.load(std::memory_order_relaxed) + static_cast<std::uint64_t>(table().count);
}

void Completion::before_one(const MPI_Request* request, MPI_Status*& status) noexcept {
  if (table().count == 0 || request == nullptr) [[likely]]
    return;
  const int s = find(key_of(request));
  if (s < 0) return;
  found_ = 1;
  slot_[0] = static_cast<std::int16_t>(s);
  hit_[0] = table().entries[s];
  if (status == MPI_STATUS_IGNORE) status = &own_[0];
}

void Completion::complete(Guard& guard, int index, const MPI_Status* status) noexcept {
  const PendingRecv& p = hit_[index];
  guard.add_bytes(p.call, p.hist, received(status, p.posted));
  if (const int s = find(p.key); s >= 0) erase(s);
}

void Completion::after_one(Guard& guard, const int* flag, const MPI_Status* status) noexcept {
  if (found_ == 0 || (flag != nullptr && *flag == 0)) return;
  complete(guard, 0, status);
}

void Completion::before_many(Guard& guard, int count, const MPI_Request requests[],
                             MPI_Status*& statuses) noexcept {
  if (table().count == 0 || requests == nullptr || count <= 0) [[likely]]
    return;
  if (count > kMaxCompletions) {
    // Too many to follow on the stack: the pending receives among them count their posted size
    // now (and are forgotten), counted as fallbacks.
    for (int i = 0; i < count; ++i) forget_posted(guard, &requests[i]);
    return;
  }
  for (int i = 0; i < count; ++i) {
    const int s = find(key_of(&requests[i]));
    slot_[i] = static_cast<std::int16_t>(s);
    if (s >= 0) {
      hit_[i] = table().entries[s];
      ++found_;
    }
  }
  if (found_ > 0 && statuses == MPI_STATUSES_IGNORE) statuses = own_;
}

void Completion::forget_posted(Guard& guard, const MPI_Request* request) noexcept {
  if (const int s = find(key_of(request)); s >= 0) {
    const PendingRecv p = table().entries[s];
    erase(s);
    guard.add_bytes(p.call, p.hist, p.posted);
    g_fallbacks.fetch_add(1, std::memory_order_relaxed);
  }
}

void Completion::after_many(Guard& guard, int n, const int* indices,
                            const MPI_Status* statuses) noexcept {
  if (found_ == 0) return;
  for (int k = 0; k < n; ++k) {
    const int i = indices ? indices[k] : k;
    if (found(i)) complete(guard, i, &statuses[k]);
  }
}

void Completion::after_any(Guard& guard, int index, const MPI_Status* status) noexcept {
  if (found(index)) complete(guard, index, status);
}

namespace {
MPI_Fint fint_of(const void* p) { return *static_cast<const MPI_Fint*>(p); }
bool f_true(const void* flag) { return flag == nullptr || fint_of(flag) != 0; }
// A Fortran status as C; nullptr for MPI_STATUS_IGNORE (Status_f2c refuses it too).
const MPI_Status* c_status(const void* f, MPI_Status* c) {
  const auto& h = pmpi::handles();
  if (f == nullptr || fb::status_ignored(f) || f == h.fortran_statuses_ignore ||
      f == h.f08_statuses_ignore)
    return nullptr;
  return pmpi::Status_f2c.get()(static_cast<const MPI_Fint*>(f), c) == MPI_SUCCESS ? c : nullptr;
}
}  // namespace

std::uint64_t remember_recv_f(const void* request, std::uint64_t posted, int call,
                              int hist) noexcept {
  if (request == nullptr || !pmpi::handles().resolved) {
    g_fallbacks.fetch_add(1, std::memory_order_relaxed);
    return posted;
  }
  const MPI_Request c = abi::request_f2c(fint_of(request));
  return remember_recv(&c, posted, call, hist);
}

void FortranCompletion::before_one(const void* request, void*& status) noexcept {
  if (table().count == 0 || request == nullptr) [[likely]]
    return;
  const MPI_Request c = abi::request_f2c(fint_of(request));
  MPI_Status* kept = nullptr;  // not MPI_STATUS_IGNORE: the Fortran status is handled here
  Completion::before_one(&c, kept);
  if (any_found() && fb::status_ignored(status)) status = own_f_;
}

void FortranCompletion::before_many(Guard& guard, const void* count, const void* requests,
                                    void*& statuses) noexcept {
  if (table().count == 0 || requests == nullptr || count == nullptr) [[likely]]
    return;
  const int n = fint_of(count);
  const auto* f = static_cast<const MPI_Fint*>(requests);
  MPI_Request c[kMaxCompletions];
  if (n > kMaxCompletions) {
    for (int i = 0; i < n; ++i) {
      c[0] = abi::request_f2c(f[i]);
      forget_posted(guard, &c[0]);
    }
    return;
  }
  for (int i = 0; i < n; ++i) c[i] = abi::request_f2c(f[i]);
  requests_ = f;
  count_ = n;
  MPI_Status* kept = nullptr;
  Completion::before_many(guard, n, c, kept);
  // Waitany/Testany pass one status (MPI_STATUS_IGNORE), the others an array.
  const auto& h = pmpi::handles();
  if (any_found() && (fb::status_ignored(statuses) || statuses == h.fortran_statuses_ignore ||
                      statuses == h.f08_statuses_ignore))
    statuses = own_f_;
}

void FortranCompletion::after_one(Guard& guard, const void* flag, const void* status) noexcept {
  if (!found(0) || !f_true(flag)) return;
  MPI_Status c;
  complete(guard, 0, c_status(status, &c));
}

void FortranCompletion::after_many(Guard& guard, const void* flag, const void* count,
                                   const void* indices, const void* statuses) noexcept {
  if (!any_found() || !f_true(flag) || count == nullptr) return;
  const int n = fint_of(count);
  const auto* st = static_cast<const MPI_Fint*>(statuses);
  const auto& h = pmpi::handles();
  const bool ignored = st == nullptr || statuses == h.fortran_statuses_ignore ||
                       statuses == h.f08_statuses_ignore;
  const auto* idx = static_cast<const MPI_Fint*>(indices);
  const int base = idx && n != MPI_UNDEFINED ? index_base(idx, n) : 0;
  for (int k = 0; k < n && n != MPI_UNDEFINED; ++k) {
    const int i = idx ? idx[k] - base : k;
    if (!found(i)) continue;
    MPI_Status c;
    complete(guard, i, ignored ? nullptr : c_status(st + k * kFortranStatusInts, &c));
  }
}

void FortranCompletion::after_any(Guard& guard, const void* flag, const void* index,
                                  const void* status) noexcept {
  if (!any_found() || !f_true(flag) || index == nullptr || fint_of(index) == MPI_UNDEFINED) return;
  const auto* idx = static_cast<const MPI_Fint*>(index);
  const int i = *idx - index_base(idx, 1);
  if (!found(i)) return;
  MPI_Status c;
  complete(guard, i, c_status(status, &c));
}

bool FortranCompletion::completed_now(int i) const noexcept {
  if (!found(i) || i >= count_) return false;
  // MPI set it to MPI_REQUEST_NULL: it is no longer the request that was posted (comparing with
  // MPI_REQUEST_NULL itself would tie this library to one MPI's null object).
  const MPI_Request now = abi::request_f2c(requests_[i]);
  return request_key(&now) != hit_[i].key;
}

// A base fits when every index is in range, no index names a pending receive that is still
// active, and the indices name every pending receive the call set to MPI_REQUEST_NULL (reported
// indices are distinct, so equal counts mean equal sets). Both fitting (no receive tells them
// apart): the standard's 1.
int FortranCompletion::index_base(const MPI_Fint* indices, int m) const noexcept {
  int done = 0;
  for (int i = 0; i < count_ && i < kMaxCompletions; ++i) done += completed_now(i) ? 1 : 0;
  bool fits[2] = {true, true};
  int named[2] = {0, 0};
  for (int b = 0; b < 2; ++b) {
    for (int k = 0; k < m && fits[b]; ++k) {
      const int i = indices[k] - b;
      if (i < 0 || i >= count_ || (found(i) && !completed_now(i))) fits[b] = false;
      named[b] += found(i) ? 1 : 0;
    }
    fits[b] = fits[b] && named[b] == done;
  }
  return fits[1] || !fits[0] ? 1 : 0;
}

}  // namespace hpcsens::preload
