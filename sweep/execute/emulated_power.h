#pragma once
// The emulated launcher's power truth as numbers (pure functions; docs/spec-format.md, "power"),
// and the energy it makes: a private powercap tree advanced by P x t under the kernel's rules
// (energy_uj wrapping at max_energy_range_uj), read by the same reader `hpcsens run` uses.
#include <string>

#include <nlohmann/json.hpp>

#include "sweep/spec/spec.h"

namespace hpcsens::sweep {

// V(f) = v_min + (v_max - v_min) (f - min_ghz) / (max_ghz - min_ghz), never below v_min; v_max
// throughout when min_ghz == max_ghz.
double emulated_volts(const EmulatedClockPower& c, double ghz);

// dynamic_w x (f / max_ghz) x (V(f) / V(max_ghz))^2: the domain's dynamic power at clock f.
double emulated_dynamic_w(const EmulatedClockPower& c, double ghz);

// One run's true power per powercap domain (W): package = static + core + uncore.
struct EmulatedWatts {
  double package = 0, core = 0, uncore = 0, dram = 0;
};
EmulatedWatts emulated_watts(const EmulatedPower& p, double core_ghz, double scale = 1.0);

// One run's true watts: the truth at the run's true core clock, times the per-run power scatter
// (1 + noise_pct/100 z, z seeded by the spec seed and run id). e.power must be set.
EmulatedWatts emulated_run_watts(const Emulation& e, double core_ghz, const std::string& run_id);

// The record's `energy` section for one emulated run of `seconds` drawing w: the watts drive a
// private powercap tree read by energy::Session on a clock that advances with the emulated time.
// Labelled source "emulated" (the reader is named as `reader`); never passed off as measured.
nlohmann::json emulated_energy(const EmulatedPower& p, const EmulatedWatts& w, double seconds, const std::string& run_id);

// The section of an emulated run without a power truth: not available, and why.
nlohmann::json emulated_energy_unavailable();

// The truth behind it, for config.emulated_truth.power: the fields and this run's watts.
nlohmann::json emulated_power_truth(const EmulatedPower& p, const EmulatedWatts& w);

}  // namespace hpcsens::sweep
