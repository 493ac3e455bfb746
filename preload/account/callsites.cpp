#include "preload/account/callsites.h"

#include "preload/account/stack_cache.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace hpcsens::preload {
namespace {

CallSiteEntry g_sites[kCallSites];
// Each entry's stack (depth > 1 only: a table apart, so that depth 1 never touches its pages).
std::uintptr_t g_stacks[kCallSites][kMaxStackDepth];
// The rows of sums (callsites.h): one per thread of the first kSiteThreads, one shared by the rest.
// Zero-initialised static storage: a row's pages are touched only where its thread counts sites.
SiteSums g_site_rows[kSiteThreads][kCallSites];
SiteSums g_site_shared_row[kCallSites];
std::atomic<int> g_site_rows_claimed{0};
std::atomic<std::uint64_t> g_site_drops{0};
const char* g_depth_error = "";

// This thread's row (null before its first counted call, and for threads beyond kSiteThreads).
// initial-exec, as t_state (accounting.h): one %fs-relative load, no __tls_get_addr call.
struct SiteThread {
  SiteSums* row = nullptr;
  bool claimed = false;
};
constinit thread_local SiteThread t_site_thread __attribute__((tls_model("initial-exec")));

std::uint64_t site_home(std::uint64_t key) {
  static_assert(kCallSites == 1 << 10);
  return (key * 0x9E3779B97F4A7C15ull) >> (64 - 10);
}

std::uint64_t stack_key(int id, const std::uintptr_t* frames, int n) {
  std::uint64_t h = static_cast<std::uint64_t>(id + 1);
  for (int i = 0; i < n; ++i) h = (h ^ frames[i]) * 0x9E3779B97F4A7C15ull, h ^= h >> 29;
  return h | 1;  // never 0, the free mark
}

// Only this thread writes `s`: plain adds, a store only for a new extreme.
[[gnu::always_inline]] inline void add_to_own_row(SiteSums& s, std::uint64_t ticks, std::uint64_t bytes) {
  ++s.count;
  s.ticks += ticks;
  s.bytes += bytes;
  if (ticks > s.max_ticks) s.max_ticks = ticks;
  if (~ticks > s.not_min_ticks) s.not_min_ticks = ~ticks;
  if (bytes > s.max_bytes) s.max_bytes = bytes;
  if (~bytes > s.not_min_bytes) s.not_min_bytes = ~bytes;
}

void add_shared_sum(std::uint64_t& v, std::uint64_t d) { std::atomic_ref<std::uint64_t>(v).fetch_add(d, std::memory_order_relaxed); }

// A plain compare on the common path; a compare-and-swap only for a new extreme.
void keep_shared_greatest(std::uint64_t& v, std::uint64_t x) {
  std::atomic_ref<std::uint64_t> r(v);
  std::uint64_t seen = r.load(std::memory_order_relaxed);
  while (x > seen && !r.compare_exchange_weak(seen, x, std::memory_order_relaxed)) {
  }
}

// Threads beyond kSiteThreads, all on one row.
void add_to_shared_row(SiteSums& s, std::uint64_t ticks, std::uint64_t bytes) {
  add_shared_sum(s.count, 1);
  add_shared_sum(s.ticks, ticks);
  add_shared_sum(s.bytes, bytes);
  keep_shared_greatest(s.max_ticks, ticks);
  keep_shared_greatest(s.not_min_ticks, ~ticks);
  keep_shared_greatest(s.max_bytes, bytes);
  keep_shared_greatest(s.not_min_bytes, ~bytes);
}

void claim_site_row(SiteThread& t) {
  const int i = g_site_rows_claimed.fetch_add(1, std::memory_order_relaxed);
  t.row = i < kSiteThreads ? g_site_rows[i] : nullptr;
  t.claimed = true;
}

// The table's entry for `key` (claimed now if new, its stack stored from `frames` at depth > 1),
// probing from its home slot; -1 when none is free within kSiteProbes.
int site_entry(std::uint64_t key, int id, int depth, const std::uintptr_t* frames) {
  std::uint64_t h = site_home(key);
  for (int probe = 0; probe < kSiteProbes; ++probe, h = (h + 1) & (kCallSites - 1)) {
    CallSiteEntry& e = g_sites[h];
    std::uint64_t seen = e.key.load(std::memory_order_acquire);
    if (seen == 0 && e.key.compare_exchange_strong(seen, key, std::memory_order_acq_rel)) {
      // The stack is read at finalize only, after `id` marks the entry complete.
      if (depth > 1) std::memcpy(g_stacks[h], frames, sizeof g_stacks[h]);
      e.id.store(static_cast<std::uint32_t>(id + 1), std::memory_order_release);
      seen = key;
    }
    if (seen == key) return static_cast<int>(h);
  }
  return -1;
}

// Everything but depth 1's common case: a new site, a site away from its home slot, a thread's
// first call, threads beyond kSiteThreads, and stacks of depth > 1.
[[gnu::noinline]] void add_callsite_slow(std::uint64_t key, int id, int depth, const std::uintptr_t* frames,
                                         std::uint64_t ticks, std::uint64_t bytes) noexcept {
  SiteThread& t = t_site_thread;
  if (!t.claimed) claim_site_row(t);
  const int i = site_entry(key, id, depth, frames);
  if (i < 0) {
    g_site_drops.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  if (t.row != nullptr)
    add_to_own_row(t.row[i], ticks, bytes);
  else
    add_to_shared_row(g_site_shared_row[i], ticks, bytes);
}

[[gnu::noinline]] void add_callstack(int id, std::uintptr_t at, int depth, std::uint64_t ticks,
                                     std::uint64_t bytes) noexcept {
  // The cached walk; libgcc's unwinder only where the cache cannot answer (stack_cache.h).
  std::uintptr_t frames[kMaxStackDepth] = {};
  if (cached_stack(at, depth, kMaxStackDepth, frames) == 0) {
    std::memset(frames, 0, sizeof frames);  // a partial cached walk leaves nothing behind
    unwound_stack(at, depth, kMaxStackDepth, frames);
  }
  add_callsite_slow(stack_key(id, frames, depth), id, depth, frames, ticks, bytes);
}

// Adds one row's sums for an entry into the totals.
void add_row_to_totals(SiteTotals& t, const SiteSums& s) {
  t.count += s.count, t.ticks += s.ticks, t.bytes += s.bytes;
  t.max_ticks = std::max(t.max_ticks, s.max_ticks), t.min_ticks = std::max(t.min_ticks, s.not_min_ticks);
  t.max_bytes = std::max(t.max_bytes, s.max_bytes), t.min_bytes = std::max(t.min_bytes, s.not_min_bytes);
}

int site_rows_used() { return std::min(g_site_rows_claimed.load(std::memory_order_relaxed), kSiteThreads); }

}  // namespace

bool g_callsites_on = false;
int g_stack_depth = 1;

void add_callsite(int id, const void* site, std::uint64_t ticks, std::uint64_t bytes) noexcept {
  const auto at = reinterpret_cast<std::uintptr_t>(site);
  if (g_stack_depth > 1) [[unlikely]] {
    add_callstack(id, at, g_stack_depth, ticks, bytes);
    return;
  }
  // Depth 1's common case: a known site in its home slot, counted by a thread with its own row.
  const std::uint64_t key = at ^ (static_cast<std::uint64_t>(id + 1) << 52);
  const std::uint64_t h = site_home(key);
  SiteSums* row = t_site_thread.row;
  if (row != nullptr && g_sites[h].key.load(std::memory_order_acquire) == key) [[likely]] {
    add_to_own_row(row[h], ticks, bytes);
    return;
  }
  add_callsite_slow(key, id, 1, nullptr, ticks, bytes);
}

void callsites_begin(const char* v, const char* depth) noexcept {
  // Static storage starts zeroed: clear only a table an earlier begin may have filled (tests), so
  // a rank without --callsites never touches its pages.
  static bool maybe_filled = false;
  if (maybe_filled) {
    for (auto& e : g_sites) {
      e.key.store(0, std::memory_order_relaxed);
      e.id.store(0, std::memory_order_relaxed);
    }
    std::memset(g_stacks, 0, sizeof g_stacks);
    // Threads keep the rows they claimed (their thread-local pointers stay valid): only zeroed.
    for (int r = 0; r < site_rows_used(); ++r) std::memset(static_cast<void*>(g_site_rows[r]), 0, sizeof g_site_rows[r]);
    std::memset(static_cast<void*>(g_site_shared_row), 0, sizeof g_site_shared_row);
  }
  g_site_drops.store(0);
  g_callsites_on = v != nullptr && (std::strcmp(v, "1") == 0 || std::strcmp(v, "yes") == 0 || std::strcmp(v, "on") == 0);
  g_stack_depth = 1;
  g_depth_error = "";
  if (g_callsites_on && depth != nullptr && *depth != '\0') {
    char* end = nullptr;
    const long k = std::strtol(depth, &end, 10);
    if (*end != '\0' || k < 1 || k > kMaxStackDepth) {
      g_depth_error = "HPCSENS_STACK_DEPTH is not a whole number from 1 to 8: call sites not kept";
      g_callsites_on = false;
    } else {
      g_stack_depth = static_cast<int>(k);
    }
  }
  maybe_filled = maybe_filled || g_callsites_on;
}

const char* callsites_error() noexcept { return g_depth_error; }

int callsite_totals(SiteTotals out[]) noexcept {
  int n = 0;
  const int rows = site_rows_used();
  for (int i = 0; i < kCallSites; ++i) {
    const CallSiteEntry& e = g_sites[i];
    const std::uint64_t key = e.key.load(std::memory_order_acquire);
    const std::uint32_t id1 = e.id.load(std::memory_order_acquire);
    if (key == 0 || id1 == 0) continue;
    SiteTotals t{};
    add_row_to_totals(t, g_site_shared_row[i]);
    for (int r = 0; r < rows; ++r) add_row_to_totals(t, g_site_rows[r][i]);
    if (t.count == 0) continue;
    t.min_ticks = ~t.min_ticks, t.min_bytes = ~t.min_bytes;  // they held the greatest ~min
    t.id = static_cast<int>(id1) - 1;
    t.depth = 1;
    if (g_stack_depth > 1) {
      t.frames[0] = g_stacks[i][0];
      while (t.depth < g_stack_depth && g_stacks[i][t.depth] != 0) t.frames[t.depth] = g_stacks[i][t.depth], ++t.depth;
    } else {
      t.frames[0] = static_cast<std::uintptr_t>(key ^ (static_cast<std::uint64_t>(id1) << 52));
    }
    out[n++] = t;
  }
  return n;
}

std::uint64_t callsite_drops() noexcept { return g_site_drops.load(std::memory_order_relaxed); }

}  // namespace hpcsens::preload
