// The emulated launcher's power truth in the spec: static power, a core clock domain (and an
// optional uncore one at a fixed clock) whose dynamic power grows like f x V(f)^2, an optional
// constant DRAM power, per-run scatter and the counters' wrap. All bounds are plausibility
// bounds: outside them a value is a typo (mW for W, MHz for GHz), and the spec is refused.
#include "sweep/spec/emulated_power_spec.h"

#include <algorithm>

namespace hpcsens::sweep::spec_detail {
namespace {

inline constexpr double kMaxWatts = 100000;  // per node and domain
inline constexpr double kMinVolts = 0.3, kMaxVolts = 2.0;

EmulatedClockPower parse_clock(const Reader& r, const YAML::Node& n, const std::string& f, bool uncore) {
  std::set<std::string> keys = {"dynamic_w", "min_ghz", "max_ghz", "v_min", "v_max"};
  if (uncore) keys.insert("ghz");
  r.check_keys(n, f, keys);
  EmulatedClockPower c;
  if (!n["dynamic_w"]) r.fail(n, f + ".dynamic_w", "missing (the domain's dynamic power at max_ghz, in W)");
  c.dynamic_w = r.in_range(n["dynamic_w"], f + ".dynamic_w", 0, kMaxWatts, "W");
  if (n["min_ghz"]) c.min_ghz = r.in_range(n["min_ghz"], f + ".min_ghz", kMinGhz, kMaxGhz, "GHz");
  if (n["max_ghz"]) c.max_ghz = r.in_range(n["max_ghz"], f + ".max_ghz", kMinGhz, kMaxGhz, "GHz");
  if (n["v_min"]) c.v_min = r.in_range(n["v_min"], f + ".v_min", kMinVolts, kMaxVolts, "V");
  if (n["v_max"]) c.v_max = r.in_range(n["v_max"], f + ".v_max", kMinVolts, kMaxVolts, "V");
  if (c.v_min > c.v_max)
    r.fail(n["v_min"] ? n["v_min"] : n["v_max"], f + ".v_min",
           "must not be above v_max (the voltage at the lowest clock is the lower one)");
  if (uncore) {
    if (!n["ghz"]) r.fail(n, f + ".ghz", "missing (the uncore's clock: the emulated launcher has no uncore knob)");
    c.ghz = r.in_range(n["ghz"], f + ".ghz", kMinGhz, kMaxGhz, "GHz");
    if (!c.min_ghz) c.min_ghz = c.ghz;
    if (!c.max_ghz) c.max_ghz = c.ghz;
  }
  if (c.min_ghz && c.max_ghz && *c.min_ghz > *c.max_ghz)
    r.fail(n["min_ghz"] ? n["min_ghz"] : n, f + ".min_ghz", "must not be above max_ghz");
  return c;
}

}  // namespace

EmulatedPower parse_emulated_power(const Reader& r, const YAML::Node& n) {
  const std::string f = "emulated.power";
  r.check_keys(n, f, {"static_w", "core", "uncore", "dram_w", "noise_pct", "max_energy_range_uj"});
  EmulatedPower p;
  p.line = n.Mark().line + 1;
  if (!n["static_w"]) r.fail(n, f + ".static_w", "missing (the node's power that does not depend on the clocks, in W)");
  if (!n["core"]) r.fail(n, f + ".core", "missing (e.g. core: {dynamic_w: 120}, the cores' dynamic power at the top clock)");
  p.static_w = r.in_range(n["static_w"], f + ".static_w", 0, kMaxWatts, "W");
  p.core = parse_clock(r, n["core"], f + ".core", false);
  if (n["uncore"]) p.uncore = parse_clock(r, n["uncore"], f + ".uncore", true);
  if (n["dram_w"]) p.dram_w = r.in_range(n["dram_w"], f + ".dram_w", 0, kMaxWatts, "W");
  if (n["noise_pct"]) p.noise_pct = r.in_range(n["noise_pct"], f + ".noise_pct", 0, kMaxNoisePct, "percent");
  // At least 1 J, as every RAPL part has; the kernel's counters hold 64 bits.
  if (n["max_energy_range_uj"])
    p.max_energy_range_uj = std::uint64_t(r.integer(n["max_energy_range_uj"], f + ".max_energy_range_uj", 1000000));
  return p;
}

void resolve_emulated_power(const Reader& r, const YAML::Node& root, SweepSpec& s) {
  if (!s.emulation || !s.emulation->power || s.cpu_ghz.empty()) return;
  EmulatedClockPower& c = s.emulation->power->core;
  const auto [lo, hi] = std::minmax_element(s.cpu_ghz.begin(), s.cpu_ghz.end());
  if (!c.min_ghz) c.min_ghz = *lo;
  if (!c.max_ghz) c.max_ghz = *hi;
  if (*c.min_ghz > *c.max_ghz)
    r.fail(root["emulated"]["power"]["core"], "emulated.power.core.min_ghz",
           "must not be above max_ghz (unset, they are the sweep's lowest and highest cpu_ghz)");
}

}  // namespace hpcsens::sweep::spec_detail
