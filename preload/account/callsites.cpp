#include "preload/account/callsites.h"

#include "preload/account/stack_cache.h"

#include <cstdlib>
#include <cstring>

namespace hpcsens::preload {
namespace {

CallSiteEntry g_sites[kCallSites];
// Each entry's stack (depth > 1 only: a table apart, so that depth 1 never touches its pages).
std::uintptr_t g_stacks[kCallSites][kMaxStackDepth];
std::atomic<std::uint64_t> g_site_drops{0};
const char* g_depth_error = "";

void add_relaxed(std::uint64_t& v, std::uint64_t d) { std::atomic_ref<std::uint64_t>(v).fetch_add(d, std::memory_order_relaxed); }

// A plain compare on the common path; a compare-and-swap only for a new extreme.
void keep_greatest(std::uint64_t& v, std::uint64_t x) {
  std::atomic_ref<std::uint64_t> r(v);
  std::uint64_t seen = r.load(std::memory_order_relaxed);
  while (x > seen && !r.compare_exchange_weak(seen, x, std::memory_order_relaxed)) {
  }
}

std::uint64_t stack_key(int id, const std::uintptr_t* frames, int n) {
  std::uint64_t h = static_cast<std::uint64_t>(id + 1);
  for (int i = 0; i < n; ++i) h = (h ^ frames[i]) * 0x9E3779B97F4A7C15ull, h ^= h >> 29;
  return h | 1;  // never 0, the free mark
}

void add_to(CallSiteEntry& e, std::uint64_t ticks, std::uint64_t bytes) {
  add_relaxed(e.count, 1);
  add_relaxed(e.ticks, ticks);
  add_relaxed(e.bytes, bytes);
  keep_greatest(e.max_ticks, ticks);
  keep_greatest(e.not_min_ticks, ~ticks);
  keep_greatest(e.max_bytes, bytes);
  keep_greatest(e.not_min_bytes, ~bytes);
}

}  // namespace

bool g_callsites_on = false;
int g_stack_depth = 1;

void add_callsite(int id, const void* site, std::uint64_t ticks, std::uint64_t bytes) noexcept {
  const auto at = reinterpret_cast<std::uintptr_t>(site);
  const int depth = g_stack_depth;
  std::uintptr_t frames[kMaxStackDepth] = {};
  std::uint64_t key;
  if (depth > 1) {
    // The cached walk; libgcc's unwinder only where the cache cannot answer (stack_cache.h).
    if (cached_stack(at, depth, kMaxStackDepth, frames) == 0) {
      std::memset(frames, 0, sizeof frames);  // a partial cached walk leaves nothing behind
      unwound_stack(at, depth, kMaxStackDepth, frames);
    }
    key = stack_key(id, frames, depth);
  } else {
    key = at ^ (static_cast<std::uint64_t>(id + 1) << 52);
  }
  std::uint64_t h = (key * 0x9E3779B97F4A7C15ull) >> (64 - 10);
  static_assert(kCallSites == 1 << 10);
  for (int probe = 0; probe < kSiteProbes; ++probe, h = (h + 1) & (kCallSites - 1)) {
    CallSiteEntry& e = g_sites[h];
    std::uint64_t seen = e.key.load(std::memory_order_acquire);
    if (seen == 0 && e.key.compare_exchange_strong(seen, key, std::memory_order_acq_rel)) {
      // The stack is read at finalize only, after `id` marks the entry complete.
      if (depth > 1) std::memcpy(g_stacks[h], frames, sizeof g_stacks[h]);
      e.id.store(static_cast<std::uint32_t>(id + 1), std::memory_order_release);
      seen = key;
    }
    if (seen != key) continue;
    add_to(e, ticks, bytes);
    return;
  }
  g_site_drops.fetch_add(1, std::memory_order_relaxed);
}

void callsites_begin(const char* v, const char* depth) noexcept {
  // Static storage starts zeroed: clear only a table an earlier begin may have filled (tests), so
  // a rank without --callsites never touches its pages.
  static bool maybe_filled = false;
  if (maybe_filled) {
    for (auto& e : g_sites) {
      e.key.store(0, std::memory_order_relaxed);
      e.id.store(0, std::memory_order_relaxed);
      e.count = e.ticks = e.bytes = e.max_ticks = e.not_min_ticks = e.max_bytes = e.not_min_bytes = 0;
    }
    std::memset(g_stacks, 0, sizeof g_stacks);
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
  for (int i = 0; i < kCallSites; ++i) {
    const CallSiteEntry& e = g_sites[i];
    const std::uint64_t key = e.key.load(std::memory_order_acquire);
    const std::uint32_t id1 = e.id.load(std::memory_order_acquire);
    if (key == 0 || id1 == 0 || e.count == 0) continue;
    SiteTotals& t = out[n++];
    t = SiteTotals{};
    t.id = static_cast<int>(id1) - 1;
    t.depth = 1;
    if (g_stack_depth > 1) {
      t.frames[0] = g_stacks[i][0];
      while (t.depth < g_stack_depth && g_stacks[i][t.depth] != 0) t.frames[t.depth] = g_stacks[i][t.depth], ++t.depth;
    }
    t.count = e.count, t.ticks = e.ticks, t.bytes = e.bytes;
    t.max_ticks = e.max_ticks, t.min_ticks = ~e.not_min_ticks;
    t.max_bytes = e.max_bytes, t.min_bytes = ~e.not_min_bytes;
    if (g_stack_depth == 1) t.frames[0] = static_cast<std::uintptr_t>(key ^ (static_cast<std::uint64_t>(id1) << 52));
  }
  return n;
}

std::uint64_t callsite_drops() noexcept { return g_site_drops.load(std::memory_order_relaxed); }

}  // namespace hpcsens::preload
