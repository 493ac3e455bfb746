#pragma once
// Call sites, as mpiP's signature table has them: per rank, count, time and bytes of each
// (MPI call, return address) pair, in a fixed table. Off unless HPCSENS_CALLSITES=1
// (`hpcsens run --callsites`): then the hot path costs one out-of-line call with a hash probe
// and three relaxed atomic adds; off, one load and a not-taken branch.
//
// The site is __builtin_return_address(0) of the exported wrapper, i.e. the instruction after the
// user's call (no unwinding). A Fortran call reaches our Fortran wrapper straight from the user's
// code (mpif.h, `use mpi`, mpi_f08's *_f08 symbols): that wrapper passes its own return address,
// and the C call the MPI library's Fortran binding makes underneath is nested, never counted, so
// frames inside the MPI libraries never become the site. At finalize (not in the hot path) each
// address becomes a module path and an offset in that module's ELF address space (this rank's
// own load map: PIE and ASLR differ per rank); `hpcsens report` resolves those to function and
// file:line with elfutils' libdw (report/symbolize.h).
//
// The table holds kCallSites sites per process, shared by its threads (the key is claimed with a
// compare-and-swap, the sums are relaxed atomic adds); a site that finds no free entry within
// kSiteProbes is counted in `callsite_drops`.
#include <atomic>
#include <cstdint>

namespace hpcsens::preload {

inline constexpr int kCallSites = 1024;  // a power of two
inline constexpr int kSiteProbes = 16;

struct CallSiteEntry {
  std::atomic<std::uint64_t> key{0};  // return address ^ (call id + 1) << 52; 0: free
  std::atomic<std::uint32_t> id{0};   // call id + 1, written after the key is claimed
  std::uint64_t count = 0, ticks = 0, bytes = 0;  // updated with atomic_ref
};

extern bool g_callsites_on;  // set once at MPI_Init, before any call is counted

void add_callsite(int id, const void* site, std::uint64_t ticks, std::uint64_t bytes) noexcept;

[[gnu::always_inline]] inline void callsite_call(int id, const void* site, std::uint64_t ticks,
                                                 std::uint64_t bytes) noexcept {
  if (g_callsites_on) [[unlikely]]
    add_callsite(id, site, ticks, bytes);
}

// Turns the table on (HPCSENS_CALLSITES "1", "yes" or "on") or off, and forgets it.
void callsites_begin(const char* env_value) noexcept;

// One used entry, for the record.
struct SiteTotals {
  int id = 0;
  std::uintptr_t address = 0;
  std::uint64_t count = 0, ticks = 0, bytes = 0;
};
// The used entries (call at finalize, when no other thread is in MPI); `out` holds kCallSites.
int callsite_totals(SiteTotals out[]) noexcept;
std::uint64_t callsite_drops() noexcept;

}  // namespace hpcsens::preload
