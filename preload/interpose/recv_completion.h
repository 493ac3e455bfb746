#pragma once
// Bytes of non-blocking receives as the status at completion tells them (not the posted size).
//
// MPI_Irecv/MPI_Imrecv remember their request in a fixed per-thread table (with the posted size);
// the Wait/Test families look each request up before the call (MPI sets completed requests to
// MPI_REQUEST_NULL), substitute their own statuses where the caller ignores them, and after the
// call add the received bytes to the receive call and its histogram. A thread with no pending
// receive pays one thread-local load per Wait/Test. Limits, each counted rather than silent:
// a full table (kPendingSlots) or more than kMaxCompletions requests in one array call count the
// posted size instead; a receive completed by another thread than the one that posted it, or
// freed/cancelled, stays pending and is reported as such at finalize.
#include <cstdint>

#include "preload/account/accounting.h"
#include "preload/real/pmpi.h"

namespace hpcsens::preload {

inline constexpr int kMaxCompletions = 64;

// Posted receive: remembered (returns 0 bytes to count now) or, with a full table, the posted
// size to count now.
std::uint64_t remember_recv(const MPI_Request* request, std::uint64_t posted, int call,
                            int hist) noexcept;
// The same for a Fortran request (mpif.h, `use mpi`, mpi_f08: an MPI_Fint), remembered as the C
// request it stands for, so a receive completes whichever binding waits for it.
std::uint64_t remember_recv_f(const void* request, std::uint64_t posted, int call,
                              int hist) noexcept;
// Receives still pending on all threads plus those counted at their posted size.
std::uint64_t recv_fallbacks() noexcept;

// One Wait/Test call's completions. The before_* functions may point the status arguments at the
// object's own storage; after_* run only when MPI returned MPI_SUCCESS.
class Completion {
 public:
  void before_one(const MPI_Request* request, MPI_Status*& status) noexcept;
  void after_one(Guard& guard, const int* flag, const MPI_Status* status) noexcept;
  void before_many(Guard& guard, int count, const MPI_Request requests[],
                   MPI_Status*& statuses) noexcept;
  // indices == nullptr: every request 0..n-1 completed (Waitall, Testall with *flag); else
  // request indices[k] completed with statuses[k] (Waitsome, Testsome).
  void after_many(Guard& guard, int n, const int* indices, const MPI_Status* statuses) noexcept;
  // Request `index` completed with `status` (Waitany, Testany).
  void after_any(Guard& guard, int index, const MPI_Status* status) noexcept;

 protected:
  // Request `index` of this call completed: count what `status` says arrived (nullptr: the
  // posted size) and forget the receive.
  void complete(Guard& guard, int index, const MPI_Status* status) noexcept;
  // A request past kMaxCompletions: a pending receive counts its posted size now (a fallback).
  void forget_posted(Guard& guard, const MPI_Request* request) noexcept;
  bool any_found() const noexcept { return found_ > 0; }
  bool found(int index) const noexcept {
    return found_ > 0 && index >= 0 && index < kMaxCompletions && slot_[index] >= 0;
  }

  int found_ = 0;  // requests of this call that are pending receives
  std::int16_t slot_[kMaxCompletions];  // per request index: its pending entry, -1: none
  PendingRecv hit_[kMaxCompletions];
  MPI_Status own_[kMaxCompletions];
};

// The Wait/Test families of the Fortran bindings. Every argument is the Fortran one (requests
// and flags are MPI_Fint/LOGICAL, Waitany/Waitsome indices count from 1, except in MPICH 4.0.x's
// mpi_f08, which hands back C's 0-based ones: pmodels/mpich#6270, fixed in 4.1; which of the two
// a call used is read from the requests it set to MPI_REQUEST_NULL). A status is an integer
// array of MPI_STATUS_SIZE in mpif.h and `use mpi`; Open MPI 4.1's mpi_f08 TYPE(MPI_Status) and
// MPICH's are laid out the same (Open MPI pads the type to MPI_STATUS_SIZE integers, MPICH's is
// the C struct, which is what its mpif.h status holds), so MPI_Status_f2c reads all of them.
inline constexpr int kFortranStatusInts = sizeof(MPI_Status) / sizeof(MPI_Fint);
class FortranCompletion : private Completion {
 public:
  void before_one(const void* request, void*& status) noexcept;
  void before_many(Guard& guard, const void* count, const void* requests, void*& statuses) noexcept;
  // After a successful call; flag == nullptr: a Wait (no flag to test).
  void after_one(Guard& guard, const void* flag, const void* status) noexcept;
  // indices == nullptr: every request 0..*count-1 completed; else *count requests at indices.
  void after_many(Guard& guard, const void* flag, const void* count, const void* indices,
                  const void* statuses) noexcept;
  void after_any(Guard& guard, const void* flag, const void* index, const void* status) noexcept;

 private:
  // 1 or 0: what the call's `m` reported indices count from (see the class comment).
  int index_base(const MPI_Fint* indices, int m) const noexcept;
  // Request i was a pending receive and MPI has replaced it (by MPI_REQUEST_NULL): this call
  // completed it.
  bool completed_now(int i) const noexcept;

  const MPI_Fint* requests_ = nullptr;  // the caller's array, read again after the call
  int count_ = 0;
  MPI_Fint own_f_[kMaxCompletions * kFortranStatusInts];
};

}  // namespace hpcsens::preload
