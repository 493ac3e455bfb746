#pragma once
// Energy decisions over configurations (issue 31): E = P x T with P from the power model
// (model/energy_power.h) and T from the time model; the energy-optimal configuration, the lowest
// energy within a slowdown (EAR's min_energy_to_solution policy), the EDP (E x T) and ED2P
// (E x T^2) optima, each with a 95 % interval, a verdict and a sentence; and the Pareto front of
// energy against time. Pure functions (docs/methodology.md, "Energy: power model and decisions").
#include <optional>
#include <string>
#include <vector>

#include "model/energy_power.h"
#include "model/verdict.h"

namespace hpcsens::model {

// What the time model says at one configuration, measured or a candidate.
struct EnergyConfig {
  // swept: a configuration the sweep ran (its energy measured, or emulated: EnergyReport::source);
  // predicted: a candidate, its power from the power model alone.
  std::string label, source = "swept";
  double cpu_ghz = 0, mem_gbs = NAN;
  std::optional<double> uncore_ghz;
  double time_s = 0;                     // the time model's
  double time_ln_half = 0;               // 95 % half-width of ln T
  double slow_ln = 0, slow_ln_half = 0;  // ln(T / T_baseline) and its half-width
  std::optional<double> measured_time_s, measured_energy_j, measured_power_w;
  std::string verdict = "ok";            // the time side's (a candidate's own prediction verdict)
  std::vector<std::string> reasons;
};

struct EnergyPoint {
  EnergyConfig cfg;
  double power_w = 0, energy_j = 0, energy_low = 0, energy_high = 0;  // the models'
  double save_ln = 0, save_ln_half = 0;  // ln(E / E_baseline) and its half-width
  bool pareto = false;
  double shown_time() const { return cfg.measured_time_s.value_or(cfg.time_s); }
  double shown_energy() const { return cfg.measured_energy_j.value_or(energy_j); }
};

struct EnergyDecision {
  std::string criterion;  // energy | energy within slowdown | EDP | ED2P
  std::size_t point = 0;  // index into EnergyReport::points
  double saving = 0, saving_low = 0, saving_high = 0;        // 1 - E / E_baseline (fractions)
  double slowdown = 0, slowdown_low = 0, slowdown_high = 0;  // T / T_baseline - 1
  double time_low = 0, time_high = 0;
  std::string verdict = "ok";
  std::vector<std::string> reasons;
  std::string sentence;
};

// The default of --max-slowdown: the penalty EAR's documentation uses in its examples is 10 %;
// 5 % keeps the answer to slowdowns one can usually not see in a queue.
inline constexpr double kDefaultMaxSlowdown = 0.05;

struct EnergyReport {
  bool available = false;
  std::string reason;             // why not available
  std::string domains, domains_note;
  std::string source;             // the points' energy source: powercap, emulated, csv, mixed ("" unknown)
  int nodes_per_job = 0;          // nodes one run's energy sums over (0: unknown, read as 1)
  double max_slowdown = kDefaultMaxSlowdown;
  std::string baseline;           // label
  PowerFit power;
  std::vector<EnergyPoint> points;
  EnergyDecision energy_optimal, within_slowdown, edp, ed2p;
  std::string sentence;
  std::vector<std::string> notes;  // how the figures were made, where it departs from the rule
};

// --max-slowdown: "5%", "5" (percent) or "2.5 %", from 0 to 100; a fraction. Throws InputError
// naming the option and what it wants.
double parse_max_slowdown(const std::string& text);

// Fills points, decisions and sentences. `baseline` indexes `configs`; `time_verdict` is the time
// model's. The power fit must be ok.
void decide_energy(EnergyReport& rep, const std::vector<EnergyConfig>& configs, std::size_t baseline,
                   const Verdict& time_verdict);

// Marks the points no other point beats in both shown time and shown energy.
void mark_pareto(std::vector<EnergyPoint>& points);

// "2.2 GHz", "2.3 GHz, uncore 1.2 GHz": the settings that vary among `points`.
std::string settings_words(const std::vector<EnergyPoint>& points, const EnergyConfig& c);

// "2.6 GHz" for a measured 2.60003: the clock rounded to 10 MHz, as a setting is named.
std::string clock_words(double ghz);

// A percentage as the sentences write it: "18 %", "4.2 %".
std::string pct_words(double fraction);

}  // namespace hpcsens::model
