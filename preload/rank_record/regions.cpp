#include "preload/rank_record/regions.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>

#include "preload/account/accounting.h"
#include "preload/account/clock.h"
#include "preload/rank_record/rank_report.h"
#include "preload/account/timeline.h"

namespace hpcsens::preload {
namespace {

struct Region {
  char name[kMaxRegionName + 1] = {};
  std::uint64_t count = 0, wall = 0, mpi = 0, io = 0;  // ticks; updated with atomic_ref
};

Region g_regions[kMaxRegions];
std::atomic<int> g_num_regions{0};
std::atomic_flag g_names_lock = ATOMIC_FLAG_INIT;  // only taken when a new name is seen
std::atomic<std::uint64_t> g_drops{0};

struct Mark {
  int region = -1;
  std::uint64_t wall = 0, mpi = 0, io = 0;
};
struct OpenRegions {
  Mark stack[kMaxRegionDepth];
  int depth = 0;
};
thread_local OpenRegions t_open;
Mark g_phase;  // the current MPI_Pcontrol phase (process-wide, as Pcontrol is)

bool drop() {
  g_drops.fetch_add(1, std::memory_order_relaxed);
  return false;
}

// At most kMaxRegionName bytes, never inside a UTF-8 character (a cut one would be shown as
// escapes); backs off over at most 3 continuation bytes, so no allocation and no scan.
std::size_t clip(const char* name, std::size_t len) {
  if (len <= static_cast<std::size_t>(kMaxRegionName)) return len;
  std::size_t n = kMaxRegionName;
  while (n > static_cast<std::size_t>(kMaxRegionName) - 3 && (static_cast<unsigned char>(name[n]) & 0xC0) == 0x80) --n;
  return (static_cast<unsigned char>(name[n]) & 0xC0) == 0x80 ? static_cast<std::size_t>(kMaxRegionName) : n;
}

int find(const char* name, std::size_t len) {
  const int n = g_num_regions.load(std::memory_order_acquire);
  for (int i = 0; i < n; ++i)
    if (std::strncmp(g_regions[i].name, name, len) == 0 && g_regions[i].name[len] == '\0') return i;
  return -1;
}

int find_or_add(const char* name, std::size_t len) {
  len = clip(name, len);
  if (int i = find(name, len); i >= 0) return i;
  while (g_names_lock.test_and_set(std::memory_order_acquire)) {
  }
  int i = find(name, len);
  if (i < 0 && g_num_regions.load(std::memory_order_relaxed) < kMaxRegions) {
    i = g_num_regions.load(std::memory_order_relaxed);
    std::memcpy(g_regions[i].name, name, len);
    g_regions[i].name[len] = '\0';
    g_num_regions.store(i + 1, std::memory_order_release);
  }
  g_names_lock.clear(std::memory_order_release);
  return i;
}

// This thread's MPI and I/O ticks so far.
Mark now_mark(int region) {
  Mark m{region, now_ticks(), 0, 0};
  const ThreadCounts* slot = t_state.slot;
  if (slot == nullptr) return m;
  for (int id = 0; id < kNumCalls; ++id)
    (is_io(kCalls[id].category) ? m.io : m.mpi) += slot->calls[id].ticks;
  return m;
}

void close(const Mark& begin) {
  const Mark end = now_mark(begin.region);
  Region& r = g_regions[begin.region];
  auto add = [](std::uint64_t& v, std::uint64_t d) {
    std::atomic_ref<std::uint64_t>(v).fetch_add(d, std::memory_order_relaxed);
  };
  add(r.count, 1);
  add(r.wall, end.wall - begin.wall);
  add(r.mpi, end.mpi - begin.mpi);
  add(r.io, end.io - begin.io);
}

bool counting() { return g_counting.load(std::memory_order_relaxed); }

}  // namespace

bool region_begin(const char* name, std::size_t len) noexcept {
  if (name == nullptr || !counting() || t_open.depth >= kMaxRegionDepth) return drop();
  const int i = find_or_add(name, len);
  if (i < 0) return drop();
  t_open.stack[t_open.depth++] = now_mark(i);
  if (t_open.depth == 1) timeline_mark(t_open.stack[0].wall, i);
  return true;
}

bool region_end(const char* name, std::size_t len) noexcept {
  if (name == nullptr || !counting() || t_open.depth == 0) return drop();
  const Mark& top = t_open.stack[t_open.depth - 1];
  if (find(name, clip(name, len)) != top.region) return drop();
  close(top);
  --t_open.depth;
  return true;
}

void pcontrol_phase(int level) noexcept {
  if (!counting()) {
    drop();
    return;
  }
  char name[32];
  const int len = std::snprintf(name, sizeof name, "pcontrol:%d", level);
  const int i = find_or_add(name, static_cast<std::size_t>(len));
  if (g_phase.region >= 0) close(g_phase);
  g_phase = i >= 0 ? now_mark(i) : Mark{};
  if (i < 0) drop();
  else timeline_mark(g_phase.wall, i);
}

void close_open_regions() noexcept {
  while (t_open.depth > 0) close(t_open.stack[--t_open.depth]);
  if (g_phase.region >= 0) close(g_phase);
  g_phase = Mark{};
}

std::vector<RegionResult> region_results(double seconds_per_tick) {
  std::vector<RegionResult> out;
  const int n = g_num_regions.load(std::memory_order_acquire);
  for (int i = 0; i < n; ++i) {
    const Region& r = g_regions[i];
    if (r.count == 0) continue;
    out.push_back({r.name, r.count, static_cast<double>(r.wall) * seconds_per_tick,
                   static_cast<double>(r.mpi) * seconds_per_tick,
                   static_cast<double>(r.io) * seconds_per_tick});
  }
  return out;
}

std::uint64_t region_drops() noexcept { return g_drops.load(std::memory_order_relaxed); }

const char* region_name(int i) noexcept {
  return i >= 0 && i < g_num_regions.load(std::memory_order_acquire) ? g_regions[i].name : "";
}

void reset_regions() noexcept {
  for (auto& r : g_regions) r = Region{};
  g_num_regions.store(0);
  g_drops.store(0);
  t_open = OpenRegions{};
  g_phase = Mark{};
}

}  // namespace hpcsens::preload
