#include "model/energy_dataset.h"

#include <algorithm>
#include <cmath>

#include "common/errors.h"

namespace hpcsens::model {
namespace {

using nlohmann::json;

double joules_field(const json& obj, const char* key, const std::string& where) {
  const auto& v = obj.at(key);
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0)
    throw InputError(where + "." + key + "'", "must be a number of joules >= 0");
  return v.get<double>();
}

// One node's package (+dram) joules and its reader's span; false when the node was not read.
bool node_energy(const json& n, const std::string& where, double& joules, double& span, bool& dram) {
  if (!n.is_object()) throw InputError(where + "'", "not an object");
  const auto av = n.find("available");
  if (av == n.end() || !av->is_boolean() || !av->get<bool>()) return false;
  const auto by = n.find("joules_by_domain");
  if (by == n.end() || !by->is_object() || !by->contains("package"))
    throw InputError(where + ".joules_by_domain.package'", "missing on an available node");
  joules = joules_field(*by, "package", where + ".joules_by_domain");
  dram = by->contains("dram");
  if (dram) joules += joules_field(*by, "dram", where + ".joules_by_domain");
  const auto d = n.find("duration_s");
  if (d == n.end() || !d->is_number() || !(d->get<double>() > 0))
    throw InputError(where + ".duration_s'", "must be a number of seconds greater than zero");
  span = d->get<double>();
  return true;
}

void read_uncore(const json& config, const std::string& path, Observation& o) {
  for (const char* key : {"uncore_max_ghz_set", "uncore_max_ghz_requested", "uncore_max_ghz"}) {
    const auto it = config.find(key);
    if (it == config.end() || it->is_null()) continue;
    if (!it->is_number() || !(it->get<double>() > 0))
      throw InputError(path + ": field 'config." + key + "'", "must be a clock in GHz greater than zero");
    o.uncore_ghz = it->get<double>();
    return;
  }
}

}  // namespace

void read_record_energy(const json& config, const json& extra, const std::string& path, Observation& o) {
  if (config.is_object()) read_uncore(config, path, o);
  const auto e = extra.is_object() ? extra.find("energy") : extra.end();
  if (!extra.is_object() || e == extra.end()) {
    o.energy_reason = "the record has no energy section (written before energy was measured, or emulated without "
                      "a power truth)";
    return;
  }
  const auto av = e->is_object() ? e->find("available") : e->end();
  if (!e->is_object() || av == e->end() || !av->is_boolean() || !av->get<bool>()) {
    const auto r = e->is_object() ? e->find("reason") : e->end();
    o.energy_reason = r != e->end() && r->is_string() ? r->get<std::string>() : "not available";
    return;
  }
  const auto nodes = e->find("nodes");
  if (nodes == e->end() || !nodes->is_array()) throw InputError(path + ": field 'energy.nodes'", "not a list");
  double joules = 0, watts = 0;
  bool all_dram = true;
  int measured = 0;
  for (std::size_t i = 0; i < nodes->size(); ++i) {
    double j = 0, span = 0;
    bool dram = false;
    if (!node_energy((*nodes)[i], path + ": field 'energy.nodes[" + std::to_string(i) + "]", j, span, dram)) continue;
    joules += j, watts += j / span, all_dram = all_dram && dram, ++measured;
  }
  if (measured == 0) {
    o.energy_reason = "not available: no node of the record was measured";
    return;
  }
  o.energy_j = joules, o.power_w = watts;
  o.energy_domains = all_dram ? "package+dram" : "package";
  const auto src = e->find("source");
  o.energy_source = src != e->end() && src->is_string() ? src->get<std::string>() : "";
  o.energy_nodes = measured;
}

void combine_energy(const std::vector<const Observation*>& runs, Point& p) {
  std::vector<double> uncores, energies;
  for (const Observation* o : runs) {
    if (o->uncore_ghz) uncores.push_back(*o->uncore_ghz);
    if (!o->energy_j || !o->power_w) {
      if (p.energy_reason.empty())
        p.energy_reason = o->energy_reason.empty() ? "no energy measured" : o->energy_reason;
      continue;
    }
    energies.push_back(*o->energy_j);
    p.power_reps_w.push_back(*o->power_w);
    if (p.energy_domains.empty() || p.energy_domains == o->energy_domains) p.energy_domains = o->energy_domains;
    else p.energy_domains = "package";  // mixed: only the package is common to all
    if (p.energy_source.empty() || p.energy_source == o->energy_source) p.energy_source = o->energy_source;
    else p.energy_source = "mixed";
    p.energy_nodes = std::max(p.energy_nodes, o->energy_nodes);
  }
  if (uncores.size() == runs.size() && !uncores.empty()) p.uncore_ghz = median(uncores);
  if (!p.energy_reason.empty()) {  // one repetition without energy: the configuration has none
    p.power_reps_w.clear();
    return;
  }
  if (!energies.empty()) p.energy_j = median(energies);
}

}  // namespace hpcsens::model
