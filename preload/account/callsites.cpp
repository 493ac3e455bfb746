#include "preload/account/callsites.h"

#include <cstring>

namespace hpcsens::preload {
namespace {

CallSiteEntry g_sites[kCallSites];
std::atomic<std::uint64_t> g_site_drops{0};

std::uint64_t site_key(int id, const void* site) {
  return reinterpret_cast<std::uintptr_t>(site) ^ (static_cast<std::uint64_t>(id + 1) << 52);
}

void add_relaxed(std::uint64_t& v, std::uint64_t d) { std::atomic_ref<std::uint64_t>(v).fetch_add(d, std::memory_order_relaxed); }

}  // namespace

bool g_callsites_on = false;

void add_callsite(int id, const void* site, std::uint64_t ticks, std::uint64_t bytes) noexcept {
  const std::uint64_t key = site_key(id, site);
  std::uint64_t h = (key * 0x9E3779B97F4A7C15ull) >> (64 - 10);
  static_assert(kCallSites == 1 << 10);
  for (int probe = 0; probe < kSiteProbes; ++probe, h = (h + 1) & (kCallSites - 1)) {
    CallSiteEntry& e = g_sites[h];
    std::uint64_t seen = e.key.load(std::memory_order_acquire);
    if (seen == 0) {
      if (e.key.compare_exchange_strong(seen, key, std::memory_order_acq_rel)) {
        e.id.store(static_cast<std::uint32_t>(id + 1), std::memory_order_release);
        seen = key;
      }
    }
    if (seen != key) continue;
    add_relaxed(e.count, 1);
    add_relaxed(e.ticks, ticks);
    add_relaxed(e.bytes, bytes);
    return;
  }
  g_site_drops.fetch_add(1, std::memory_order_relaxed);
}

void callsites_begin(const char* v) noexcept {
  // Static storage starts zeroed: clear only a table an earlier begin may have filled (tests), so
  // a rank without --callsites never touches its ~40 KiB.
  static bool maybe_filled = false;
  if (maybe_filled)
    for (auto& e : g_sites) {
      e.key.store(0, std::memory_order_relaxed);
      e.id.store(0, std::memory_order_relaxed);
      e.count = e.ticks = e.bytes = 0;
    }
  g_site_drops.store(0);
  g_callsites_on = v != nullptr && (std::strcmp(v, "1") == 0 || std::strcmp(v, "yes") == 0 || std::strcmp(v, "on") == 0);
  maybe_filled = maybe_filled || g_callsites_on;
}

int callsite_totals(SiteTotals out[]) noexcept {
  int n = 0;
  for (const auto& e : g_sites) {
    const std::uint64_t key = e.key.load(std::memory_order_acquire);
    const std::uint32_t id1 = e.id.load(std::memory_order_acquire);
    if (key == 0 || id1 == 0 || e.count == 0) continue;
    const int id = static_cast<int>(id1) - 1;
    out[n++] = {id, static_cast<std::uintptr_t>(key ^ (static_cast<std::uint64_t>(id1) << 52)), e.count, e.ticks,
                e.bytes};
  }
  return n;
}

std::uint64_t callsite_drops() noexcept { return g_site_drops.load(std::memory_order_relaxed); }

}  // namespace hpcsens::preload
