#include "model/node_effects.h"

#include <cmath>

#include <fmt/core.h>

namespace hpcsens::model {

std::vector<NodeEffect> node_effects(const std::vector<NodeRun>& runs, const std::vector<double>& predicted) {
  std::vector<NodeEffect> out;
  for (const auto& r : runs) {
    if (r.point >= predicted.size() || !(predicted[r.point] > 0) || !std::isfinite(r.time_s)) continue;
    NodeEffect* e = nullptr;
    for (auto& x : out)
      if (x.node == r.node) e = &x;
    if (e == nullptr) e = &out.emplace_back(NodeEffect{r.node, 0, 0});
    const double rel = (r.time_s - predicted[r.point]) / predicted[r.point];
    e->mean_rel_resid += (rel - e->mean_rel_resid) / ++e->runs;  // running mean
  }
  return out;
}

std::string node_effects_note(const std::vector<NodeEffect>& effects, std::size_t runs_without_node) {
  if (effects.empty())
    return "node effects were not examined: the records name no node (slurm-array sweeps record config.node)";
  std::string o = "node effect, mean (observed - model) / model of each node's runs:";
  for (const auto& e : effects) o += fmt::format(" {} {:+.2f}% ({} run{})", e.node, 100 * e.mean_rel_resid, e.runs, e.runs == 1 ? "" : "s");
  if (runs_without_node > 0) o += fmt::format("; {} run(s) name no node", runs_without_node);
  if (effects.size() == 1) o += "; one node only, so no difference between nodes can show";
  return o;
}

}  // namespace hpcsens::model
