// The nodes' energy the ranks brought back from their node's counter agent, folded into the
// record's one energy section (energy/sampler.h).
#include <map>
#include <set>
#include <string>

#include "energy/json_fields.h"
#include "energy/sampler.h"

namespace hpcsens::energy {
using nlohmann::json;

namespace {

// Per host, the rank-carried object that covers the longest span; an unavailable one only
// where no rank of that host brought an available one.
std::map<std::string, json> longest_per_host(json& ranks) {
  std::map<std::string, json> best;
  for (auto& r : ranks) {
    if (!r.is_object()) continue;
    const auto it = r.find(kRankNodeEnergy);
    if (it == r.end()) continue;
    json node = std::move(*it);
    r.erase(kRankNodeEnergy);
    if (!node.is_object()) continue;
    const std::string host = fields::str(node, "host");
    if (host.empty()) continue;
    const auto have = best.find(host);
    const bool better = have == best.end() ||
                        (fields::flag(node, "available") && !fields::flag(have->second, "available")) ||
                        (fields::flag(node, "available") == fields::flag(have->second, "available") &&
                         fields::num(node, "duration_s") > fields::num(have->second, "duration_s"));
    if (better) best[host] = std::move(node);
  }
  return best;
}

}  // namespace

void merge_rank_node_energy(json& record) {
  if (!record.is_object()) return;
  const auto ranks = record.find("ranks");
  if (ranks == record.end() || !ranks->is_array()) return;
  std::map<std::string, json> agents = longest_per_host(*ranks);
  const auto section = record.find("energy");
  if (section == record.end() || !section->is_object() || agents.empty()) return;
  json nodes = section->contains("nodes") && (*section)["nodes"].is_array() ? (*section)["nodes"] : json::array();
  std::set<std::string> have;
  for (const auto& n : nodes)
    if (n.is_object()) have.insert(fields::str(n, "host"));
  for (auto& [host, node] : agents)
    if (have.count(host) == 0) nodes.push_back(std::move(node));
  json merged = energy_section(nodes);
  // Keep what else the section holds (Slurm's figure).
  for (const auto& [k, v] : section->items())
    if (!merged.contains(k) && k != "reason") merged[k] = v;
  *section = std::move(merged);
}

}  // namespace hpcsens::energy
