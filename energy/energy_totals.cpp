#include "energy/energy_totals.h"

#include <set>

#include "energy/json_fields.h"

namespace hpcsens::energy {
using nlohmann::json;

namespace {
using fields::flag;
using fields::num;
using fields::str;
const json& nodes_of(const json& section) {
  static const json none = json::array();
  const auto it = section.find("nodes");
  return it != section.end() && it->is_array() ? *it : none;
}
}  // namespace

Totals energy_totals(const json& section) {
  Totals t;
  if (!section.is_object()) return t;
  t.source = str(section, "source");
  t.available = flag(section, "available");
  if (!t.available) t.reason = str(section, "reason").empty() ? "not available" : str(section, "reason");
  for (const auto& n : nodes_of(section)) {
    if (!n.is_object()) continue;
    if (!flag(n, "available")) {
      t.not_measured.push_back(str(n, "host"));
      continue;
    }
    ++t.nodes_measured;
    const auto by = n.find("joules_by_domain");
    if (by == n.end() || !by->is_object()) continue;
    const double pkg = num(*by, "package"), dram = num(*by, "dram");
    t.package_j += pkg;
    t.dram_j += dram;
    t.has_dram = t.has_dram || by->contains("dram");
    if (const double span = num(n, "duration_s"); span > 0) t.mean_w += (pkg + dram) / span;
  }
  t.joules = t.package_j + t.dram_j;
  if (t.available && t.nodes_measured == 0) t.available = false, t.reason = "not available: no node was measured";
  return t;
}

void mark_unmeasured_hosts(json& section, const std::vector<std::string>& hosts) {
  if (!section.is_object()) return;
  if (!section["nodes"].is_array()) section["nodes"] = json::array();
  std::set<std::string> named;
  for (const auto& n : section["nodes"])
    if (n.is_object()) named.insert(str(n, "host"));
  for (const auto& h : hosts)
    if (named.insert(h).second)
      section["nodes"].push_back({{"host", h}, {"available", false},
                                  {"reason", "not measured: node " + h + " ran no reader (no counter agent of its ranks "
                                             "handed over the node's energy: --events none, or the agent did "
                                             "not start or answer); its energy is not in these figures"}});
}

}  // namespace hpcsens::energy
