// The power truth's arithmetic (pure): CMOS dynamic power P = C f V^2 with V rising linearly in
// f over the DVFS range, scaled by the power at the top clock the spec gives.
#include "sweep/execute/emulated_power.h"

#include <algorithm>

namespace hpcsens::sweep {

double emulated_volts(const EmulatedClockPower& c, double ghz) {
  const double lo = c.min_ghz.value_or(ghz), hi = c.max_ghz.value_or(ghz);
  if (!(hi > lo)) return c.v_max;
  // Below the lowest clock the voltage stays at its floor; above the top it keeps rising.
  return std::max(c.v_min, c.v_min + (c.v_max - c.v_min) * (ghz - lo) / (hi - lo));
}

double emulated_dynamic_w(const EmulatedClockPower& c, double ghz) {
  const double top = c.max_ghz.value_or(ghz);
  const double v = emulated_volts(c, ghz) / emulated_volts(c, top);
  return c.dynamic_w * (ghz / top) * v * v;
}

EmulatedWatts emulated_watts(const EmulatedPower& p, double core_ghz, double scale) {
  EmulatedWatts w;
  w.core = emulated_dynamic_w(p.core, core_ghz) * scale;
  if (p.uncore) w.uncore = emulated_dynamic_w(*p.uncore, *p.uncore->ghz) * scale;
  w.package = p.static_w * scale + w.core + w.uncore;
  w.dram = p.dram_w * scale;
  return w;
}

nlohmann::json emulated_power_truth(const EmulatedPower& p, const EmulatedWatts& w) {
  const auto clock = [](const EmulatedClockPower& c) {
    nlohmann::json j = {{"dynamic_w", c.dynamic_w}, {"v_min", c.v_min}, {"v_max", c.v_max}};
    if (c.min_ghz) j["min_ghz"] = *c.min_ghz;
    if (c.max_ghz) j["max_ghz"] = *c.max_ghz;
    if (c.ghz) j["ghz"] = *c.ghz;
    return j;
  };
  nlohmann::json j = {{"static_w", p.static_w}, {"core", clock(p.core)}, {"dram_w", p.dram_w},
                      {"noise_pct", p.noise_pct}, {"max_energy_range_uj", p.max_energy_range_uj}};
  nlohmann::json run = {{"package", w.package}, {"core", w.core}};
  if (p.uncore) j["uncore"] = clock(*p.uncore), run["uncore"] = w.uncore;
  if (p.dram_w > 0) run["dram"] = w.dram;
  j["run_w"] = run;  // this run's true watts per domain, its scatter included
  return j;
}

}  // namespace hpcsens::sweep
