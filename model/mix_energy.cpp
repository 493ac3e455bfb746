// Per watt and energy of a workload mix (issue 31). Where every application's model carries a
// power model (fitted to a sweep's measured, or emulated, energy), each candidate's power is the
// power model at the candidate's clocks; else the SYSTEMS file's nominal power_w, labelled as
// such; else none, saying why (docs/methodology.md, "Workload mixes: per watt and energy").
#include <fmt/core.h>

#include <algorithm>

#include "model/energy_analysis.h"
#include "model/mix.h"

namespace hpcsens::model {
namespace {

constexpr const char* kBasisNames[] = {"measured power model", "nominal, from SYSTEMS file", "none"};

// "'b': not available: no RAPL ..." for each application whose model has no power model.
std::string applications_without_power(const Mix& mix) {
  std::string out;
  for (const auto& a : mix.apps)
    if (!a.model.energy.available || !a.model.energy.power.ok)
      out += fmt::format("{}application '{}' has no power model ({})", out.empty() ? "" : "; ", a.name,
                         a.model.energy.reason.empty() ? "its model has no energy" : a.model.energy.reason);
  return out;
}

// One system from the power models. A job's power is over the nodes its sweep measured, so a
// node's is that over nodes_per_job; the mix's power per node weights each application by the
// node-hours it takes on this system (w_i / S_i), as the workload speed-up does.
void measured_system(const Mix& mix, MixSystem& s) {
  double hours = 0, watt_hours = 0, energy_ratio = 0;
  for (std::size_t i = 0; i < s.apps.size(); ++i) {
    const ModelReport& m = mix.apps[i].model;
    MixAppResult& a = s.apps[i];
    const auto cp = candidate_power(m, a.pred);
    a.power_w = cp->power_w, a.energy_j = cp->energy_j;
    const double share = a.weight / a.pred.speedup;
    hours += share;
    watt_hours += share * cp->power_w / std::max(1, m.energy.nodes_per_job);
    energy_ratio += a.weight * cp->energy_j / cp->baseline_energy_j;
    for (const auto& why : candidate_power_doubts(m, a.pred)) s.warnings.push_back(a.name + ": " + why);
    if (const std::string note = candidate_uncore_note(m, a.pred); !note.empty()) s.warnings.push_back(a.name + ": " + note);
  }
  s.node_power_w = watt_hours / hours;
  s.energy_ratio = energy_ratio;
  s.per_watt = s.speedup / (mix.baseline_nodes * *s.node_power_w);
}

}  // namespace

const char* power_basis_name(PowerBasis b) { return kBasisNames[static_cast<int>(b)]; }

void mix_power(const Mix& mix, MixResult& r) {
  const std::string missing = applications_without_power(mix);
  bool nominal_given = false;
  for (const auto& s : r.systems) nominal_given = nominal_given || s.system.power_w;
  if (missing.empty() && !mix.apps.empty()) {
    r.power_basis = PowerBasis::measured;
    int nodes = 1;
    bool emulated = false;
    for (const auto& a : mix.apps)
      nodes = std::max(nodes, a.model.energy.nodes_per_job), emulated = emulated || a.model.energy.source == "emulated";
    r.power_note = fmt::format(
        "per watt and energy from the applications' measured power models at each candidate's clocks (power per "
        "node = a job's power over the nodes its sweep measured{}; per watt = speedup / (baseline_nodes x power per "
        "node)){}",
        nodes > 1 ? fmt::format(", up to {}", nodes) : "",
        nominal_given ? "; the SYSTEMS file's nominal power_w is not used" : "") +
        (emulated ? "; EMULATED: a power model was fitted to emulated energy (a power truth), not measurements" : "");
    for (auto& s : r.systems) measured_system(mix, s);
    return;
  }
  if (nominal_given) {
    r.power_basis = PowerBasis::nominal;
    r.power_note = "per watt from the nominal power_w in the SYSTEMS file (the whole system), not measured: " + missing;
    for (auto& s : r.systems) {
      if (s.system.power_w && s.throughput) s.per_watt = *s.throughput / *s.system.power_w;
      else if (s.system.power_w) s.warnings.push_back("power_w needs nodes to give throughput per watt");
    }
    return;
  }
  r.power_basis = PowerBasis::none;
  r.power_note = "no per watt or energy: no system gives power_w, and " + missing;
}

}  // namespace hpcsens::model
