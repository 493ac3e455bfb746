#pragma once
// What the generated wrappers (wrappers_c.cpp, wrappers_fortran.cpp) need: the real symbols,
// the hot-path accounting, and the byte-count helpers named in mpi_calls.tbl.
#include <cstddef>
#include <cstdint>

#include "call_table.h"
#include "preload/account/accounting.h"
#include "preload/account/clock.h"
#include "preload/account/net_delay.h"
#include "preload/real/pmpi.h"
#include "preload/real/real_symbol.h"
#include "preload/interpose/persistent_sends.h"
#include "preload/interpose/recv_completion.h"
#include "preload/account/timeline.h"
#include "preload/account/callsites.h"
#include "preload/account/file_table.h"

#define HPCSENS_EXPORT __attribute__((visibility("default")))

namespace hpcsens::preload {

// Byte-count helpers for C arguments. Never called with handles the MPI standard lets be garbage
// (the table uses only significant arguments); null handles count 0 instead of raising an MPI error.
namespace cb {
// Counts are int, or MPI_Count in the MPI-4 large-count '_c' variants (mpi4_calls.tbl).
std::int64_t n(int count) noexcept;
std::int64_t n(MPI_Count count) noexcept;
std::int64_t t(MPI_Datatype type) noexcept;
std::int64_t np(MPI_Comm comm) noexcept;
std::int64_t nout(MPI_Comm comm) noexcept;
std::int64_t sum(const int counts[], MPI_Comm comm) noexcept;
std::int64_t sumn(const int counts[], MPI_Comm comm) noexcept;
std::int64_t own(const int counts[], MPI_Comm comm) noexcept;  // counts[rank of this process]
std::int64_t sumw(const int counts[], const MPI_Datatype types[], MPI_Comm comm) noexcept;
std::int64_t sumnw(const int counts[], const MPI_Datatype types[], MPI_Comm comm) noexcept;
std::int64_t sum(const MPI_Count counts[], MPI_Comm comm) noexcept;
std::int64_t sumn(const MPI_Count counts[], MPI_Comm comm) noexcept;
std::int64_t own(const MPI_Count counts[], MPI_Comm comm) noexcept;
std::int64_t sumw(const MPI_Count counts[], const MPI_Datatype types[], MPI_Comm comm) noexcept;
std::int64_t sumnw(const MPI_Count counts[], const MPI_Datatype types[], MPI_Comm comm) noexcept;
bool inplace(const void* buf) noexcept;
// Bytes received according to `status` (never MPI_STATUS_IGNORE: the wrapper substitutes its
// own); the posted count x type size if MPI cannot say (MPI_UNDEFINED: a partial element).
std::int64_t rcv(const MPI_Status* status, int count, MPI_Datatype type) noexcept;
// The MPI_COMM_WORLD rank of `rank` in `comm` (its remote group for an intercommunicator); -1
// for MPI_PROC_NULL and anything MPI cannot translate.
int world_rank(int rank, MPI_Comm comm) noexcept;
// A rank argument as given, not clamped as counts are: MPI_PROC_NULL stays itself.
inline std::int64_t rank(int r) noexcept { return r; }
// The network-delay knob: whether a collective on `comm` crosses nodes (net_delay.h; true on a
// one-node job, for MPI_COMM_WORLD, and for groups of more than 256 ranks).
bool off_node(MPI_Comm comm) noexcept;
}  // namespace cb

// The same for Fortran arguments (every argument is a pointer; handles are MPI_Fint, and an
// mpi_f08 handle is a derived type whose first component is that integer).
namespace fb {
bool ok(const void* ierror) noexcept;  // absent (optional in mpi_f08) or MPI_SUCCESS
std::int64_t n(const void* count) noexcept;
std::int64_t t(const void* type) noexcept;
std::int64_t np(const void* comm) noexcept;
std::int64_t nout(const void* comm) noexcept;
std::int64_t sum(const void* counts, const void* comm) noexcept;
std::int64_t sumn(const void* counts, const void* comm) noexcept;
std::int64_t own(const void* counts, const void* comm) noexcept;
std::int64_t sumw(const void* counts, const void* types, const void* comm) noexcept;
std::int64_t sumnw(const void* counts, const void* types, const void* comm) noexcept;
bool inplace(const void* buf) noexcept;
// Bytes received according to a Fortran status (an mpif.h / `use mpi` integer array or an
// mpi_f08 TYPE(MPI_Status), laid out alike: recv_completion.h); the posted count x type size
// for MPI_STATUS_IGNORE.
std::int64_t rcv(const void* status, const void* count, const void* type) noexcept;
// True for the Fortran MPI_STATUS_IGNORE (or a null status).
bool status_ignored(const void* status) noexcept;
int world_rank(const void* rank, const void* comm) noexcept;
// A rank argument as given, not clamped as counts are: MPI_PROC_NULL stays itself.
std::int64_t rank(const void* r) noexcept;
bool off_node(const void* comm) noexcept;
// The per-file table's key of a Fortran file handle (its integer with the top bit set: never a C
// handle's address); null for a null handle or MPI_FILE_NULL (0 in Open MPI and MPICH).
const void* file_key(const void* fh) noexcept;
}  // namespace fb

}  // namespace hpcsens::preload
