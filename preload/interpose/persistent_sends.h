#pragma once
// Persistent sends (MPI_Send_init, _Bsend_init, _Ssend_init, _Rsend_init and their '_c'
// variants) send nothing when created: each MPI_Start/MPI_Startall of the request sends once.
// The init call remembers the request's message (bytes, destination world rank, which call) in
// a fixed process-wide table; each start looks the request up and adds the bytes to the init
// call, its message-size histogram and the destination partner. MPI_Request_free (the only way
// a persistent request ends) marks the entry dead before MPI may reuse the handle.
//
// The table is static storage, open addressing on the request handle; an entry's key, once
// claimed (compare-and-swap), stays with that handle value, so a start only reads and never
// locks. A full table (kPersistentSlots distinct handles) is a counted drop: those starts are
// not attributed. A start of a request that is not a persistent send (a persistent receive or
// collective) finds no entry and costs one table probe.
#include <cstdint>

#include "preload/account/accounting.h"
#include "preload/real/pmpi.h"

namespace hpcsens::preload {

inline constexpr int kPersistentSlots = 1024;

// After a successful init call: `request` sends `bytes` to `world_rank` (negative: none/unknown);
// `to_proc_null`: its destination is MPI_PROC_NULL (it sends nothing, and is never delayed).
void remember_send(const MPI_Request* request, int call, int hist, int world_rank,
                   std::uint64_t bytes, bool to_proc_null = false) noexcept;
void remember_send_f(const void* request, int call, int hist, int world_rank,
                     std::uint64_t bytes, bool to_proc_null = false) noexcept;
// Before MPI_Request_free: the handle no longer names that send.
void forget_send(const MPI_Request* request) noexcept;
void forget_send_f(const void* request) noexcept;
// The network-delay knob, before MPI_Start / MPI_Startall hands the requests to MPI: each
// persistent send among them (not to MPI_PROC_NULL) is one message of its bytes, delayed in turn
// as back-to-back Isends are; persistent receives and collectives add nothing (net_delay.h).
void delay_starts(std::uint64_t start, int count, const MPI_Request requests[]) noexcept;
void delay_starts_f(std::uint64_t start, const void* count, const void* requests) noexcept;
// After a successful MPI_Start / MPI_Startall (C or Fortran handles; count == nullptr: one).
void started(Guard& guard, int count, const MPI_Request requests[]) noexcept;
void started_f(Guard& guard, const void* count, const void* requests) noexcept;
// Persistent sends the table could not hold (their starts are not attributed).
std::uint64_t persistent_drops() noexcept;
// Forget everything (tests).
void reset_persistent_sends() noexcept;

}  // namespace hpcsens::preload
