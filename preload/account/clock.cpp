#include "preload/account/clock.h"

#include <cstdio>
#include <cstring>
#include <tuple>
#include <utility>

namespace hpcsens::preload {

bool g_use_tsc = false;

bool invariant_tsc(const char* flags) noexcept {
  auto has = [flags](const char* word) {
    const size_t n = std::strlen(word);
    for (const char* p = std::strstr(flags, word); p != nullptr; p = std::strstr(p + 1, word)) {
      const bool start = p == flags || p[-1] == ' ' || p[-1] == '\t' || p[-1] == ':';
      const bool end = p[n] == '\0' || p[n] == ' ' || p[n] == '\n' || p[n] == '\t';
      if (start && end) return true;
    }
    return false;
  };
  return has("constant_tsc") && has("nonstop_tsc");
}

namespace {
// The first "flags" line of /proc/cpuinfo, read with stdio (not counted as the job's I/O).
bool cpuinfo_says_invariant_tsc() {
  FILE* f = std::fopen("/proc/cpuinfo", "r");
  if (f == nullptr) return false;
  static char line[8192];
  bool ok = false;
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (std::strncmp(line, "flags", 5) == 0) {
      ok = invariant_tsc(line);
      break;
    }
  }
  std::fclose(f);
  return ok;
}

// (ns, tick): the tick read between two clock_gettime calls, the tightest of 16 tries, with the
// ns midway between them.
std::pair<std::uint64_t, std::uint64_t> tight_pair() noexcept {
  std::pair<std::uint64_t, std::uint64_t> best;
  std::uint64_t best_width = ~0ull;
  for (int i = 0; i < 16; ++i) {
    const std::uint64_t a = now_ns();
    const std::uint64_t t = now_ticks();
    const std::uint64_t b = now_ns();
    if (b - a < best_width) best_width = b - a, best = {a + (b - a) / 2, t};
  }
  return best;
}
}  // namespace

void TickClock::start(const char* cpuinfo_flags) noexcept {
#ifdef HPCSENS_HAVE_TSC
  tsc_ = cpuinfo_flags != nullptr ? invariant_tsc(cpuinfo_flags) : cpuinfo_says_invariant_tsc();
#else
  (void)cpuinfo_flags;
  tsc_ = false;
#endif
  g_use_tsc = tsc_;
  std::tie(ns0_, tick0_) = tight_pair();
}

double TickClock::seconds_per_tick() const noexcept {
  if (!tsc_) return 1e-9;
  const auto [ns1, tick1] = tight_pair();
  const std::uint64_t ticks = tick1 - tick0_;
  const std::uint64_t ns = ns1 - ns0_;
  return ticks == 0 ? 1e-9 : static_cast<double>(ns) * 1e-9 / static_cast<double>(ticks);
}

}  // namespace hpcsens::preload
