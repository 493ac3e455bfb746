#pragma once
// Call sites, as mpiP's signature table has them: per rank, count, time and bytes of each
// (MPI call, call stack) pair, with each call's least and greatest duration and message size, in
// a fixed table. Off unless HPCSENS_CALLSITES=1 (`hpcsens run --callsites`): then the hot path
// costs one out-of-line call, a hash of the return address, one compare with the shared table's
// key, and plain adds and four compares on this thread's own sums (a store only when a call sets
// a new minimum or maximum); no atomic read-modify-write. Off, one load and a not-taken branch.
//
// Depth 1 (the default, mpiP's -k 1): the site is __builtin_return_address(0) of the exported
// wrapper, i.e. the instruction after the user's call (no unwinding). A Fortran call reaches our
// Fortran wrapper straight from the user's code (mpif.h, `use mpi`, mpi_f08's *_f08 symbols): that
// wrapper passes its own return address, and the C call the MPI library's Fortran binding makes
// underneath is nested, never counted, so frames inside the MPI libraries never become the site.
//
// Depth k > 1 (HPCSENS_STACK_DEPTH=k, `hpcsens run --stack-depth k`, at most kMaxStackDepth):
// the site is that return address and the k - 1 return addresses above it, as libgcc's unwinder
// (_Unwind_Backtrace, DWARF CFI) reports them. The stack is walked on every counted call, but
// through stack_cache.h: each return address's frame rule is read from .eh_frame once, later
// walks only look it up and load the caller's address off the stack, so a helper's callers stay
// apart (caching whole stacks by the immediate return address would merge them: calls made
// through a helper share the helper's return address and differ only above it, which is exactly
// what depth 2 is for). libgcc walks the stacks the cache cannot (docs/methodology.md: costs).
//
// At finalize (not in the hot path) each address becomes a module path and an offset in that
// module's ELF address space (this rank's own load map: PIE and ASLR differ per rank), and the
// names are resolved while the objects are still those that ran (rank_record/callsite_report.h).
//
// The table holds kCallSites sites per process, shared by its threads: an entry's key is claimed
// once with a compare-and-swap and only read after that. The sums are not shared: each of the
// first kSiteThreads threads that count a call keeps its own row of sums, indexed like the table
// and written with plain adds, and callsite_totals() adds the rows up. Why: the three relaxed
// atomic adds (lock-prefixed) on a shared entry that this replaced held 88 % of add_callsite's
// samples and made depth 1 cost 12.7 ns more than no table per MPI_Test (issue 33; now within the
// benchmark's spread of it). Threads beyond kSiteThreads share one more row, updated with
// relaxed atomic read-modify-writes. A site that finds no free entry within kSiteProbes is
// counted in `callsite_drops`.
#include <atomic>
#include <cstdint>

namespace hpcsens::preload {

inline constexpr int kCallSites = 1024;  // a power of two
inline constexpr int kSiteProbes = 16;
inline constexpr int kMaxStackDepth = 8;

inline constexpr int kSiteThreads = 64;  // threads with a row of sums of their own

// A site's identity, shared by all threads. All-zero when empty (static storage in .bss).
struct CallSiteEntry {
  std::atomic<std::uint64_t> key{0};  // depth 1: return address ^ (call id + 1) << 52; else a hash; 0: free
  std::atomic<std::uint32_t> id{0};   // call id + 1, written after the key (and the stack) are stored
};

// One site's sums in one row (a cache line: a thread's update touches one line). Minima are kept
// complemented (~min), so both extremes are "keep the greatest" and 0 means "none yet".
struct alignas(64) SiteSums {
  std::uint64_t count = 0, ticks = 0, bytes = 0;
  std::uint64_t max_ticks = 0, not_min_ticks = 0, max_bytes = 0, not_min_bytes = 0;
};

extern bool g_callsites_on;  // set once at MPI_Init, before any call is counted
extern int g_stack_depth;    // 1..kMaxStackDepth, set with g_callsites_on

void add_callsite(int id, const void* site, std::uint64_t ticks, std::uint64_t bytes) noexcept;

[[gnu::always_inline]] inline void callsite_call(int id, const void* site, std::uint64_t ticks,
                                                 std::uint64_t bytes) noexcept {
  if (g_callsites_on) [[unlikely]]
    add_callsite(id, site, ticks, bytes);
}

// Turns the table on (HPCSENS_CALLSITES "1", "yes" or "on") or off, with the stack depth
// (HPCSENS_STACK_DEPTH: 1..kMaxStackDepth; absent: 1; anything else turns the table off and
// callsites_error() says why), and forgets it.
void callsites_begin(const char* env_value, const char* depth_value = nullptr) noexcept;
// Why the last callsites_begin refused its depth ("" when it did not); for the record.
const char* callsites_error() noexcept;

// One used entry, for the record. frames[0] is the return address, frames[1..depth) the callers.
struct SiteTotals {
  int id = 0, depth = 1;
  std::uintptr_t frames[kMaxStackDepth] = {};
  std::uint64_t count = 0, ticks = 0, bytes = 0;
  std::uint64_t min_ticks = 0, max_ticks = 0, min_bytes = 0, max_bytes = 0;
};
// The used entries (call at finalize, when no other thread is in MPI); `out` holds kCallSites.
int callsite_totals(SiteTotals out[]) noexcept;
std::uint64_t callsite_drops() noexcept;

}  // namespace hpcsens::preload
