// The emulated launcher's realism fields in the spec (`emulated:` mapping): measured-rate jitter,
// STREAM's dependence on the clock, a cache in the core clock domain, a bandwidth knee and a
// clock ceiling. All optional; absent means off, so older specs produce the same records.
#include "sweep/spec/emulated_spec.h"

namespace hpcsens::sweep::spec_detail {

const std::set<std::string>& emulated_realism_keys() {
  static const std::set<std::string> keys = {"stream_jitter_pct", "clock_jitter_pct", "stream_clock_elasticity",
                                             "cache_gb", "cache_bytes_per_cycle", "knee_gbs", "clock_ceiling_ghz"};
  return keys;
}

void parse_emulated_realism(const Reader& r, const YAML::Node& n, EmulatedRealism& m) {
  const std::string f = "emulated.";
  if (n["stream_jitter_pct"])
    m.stream_jitter_pct = r.in_range(n["stream_jitter_pct"], f + "stream_jitter_pct", 0, kMaxNoisePct, "percent");
  if (n["clock_jitter_pct"])
    m.clock_jitter_pct = r.in_range(n["clock_jitter_pct"], f + "clock_jitter_pct", 0, kMaxNoisePct, "percent");
  // STREAM never gains more than the clock does: an elasticity above 1 is a typo, not a machine.
  if (n["stream_clock_elasticity"])
    m.stream_clock_elasticity =
        r.in_range(n["stream_clock_elasticity"], f + "stream_clock_elasticity", 0, 1, "(relative STREAM change per relative clock change)");
  if (n["cache_gb"]) m.cache_gb = r.in_range(n["cache_gb"], f + "cache_gb", 0, kMaxEmulatedWork, "GB");
  if (n["cache_bytes_per_cycle"])
    m.cache_bytes_per_cycle = r.in_range(n["cache_bytes_per_cycle"], f + "cache_bytes_per_cycle", 0.001, 4096, "bytes per cycle");
  if (n["knee_gbs"]) m.knee_gbs = r.in_range(n["knee_gbs"], f + "knee_gbs", kMinGbs, kMaxGbs, "GB/s");
  if (n["clock_ceiling_ghz"])
    m.clock_ceiling_ghz = r.in_range(n["clock_ceiling_ghz"], f + "clock_ceiling_ghz", kMinGhz, kMaxGhz, "GHz");
}

}  // namespace hpcsens::sweep::spec_detail
