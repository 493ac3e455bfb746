#include "model/node_effects.h"

#include <algorithm>
#include <map>

#include <fmt/core.h>

namespace hpcsens::model {
namespace {

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string pct(double f) { return fmt::format("{:.2f}%", 100 * f); }

}  // namespace

std::vector<NodeEffect> node_effects(const std::vector<NodeRun>& runs, const std::vector<double>& predicted) {
  std::vector<NodeEffect> out;
  for (const auto& r : runs) {
    if (r.point >= predicted.size() || !(predicted[r.point] > 0) || !std::isfinite(r.time_s)) continue;
    NodeEffect* e = nullptr;
    for (auto& x : out)
      if (x.node == r.node) e = &x;
    if (e == nullptr) e = &out.emplace_back(NodeEffect{r.node, 0, 0, false});
    const double rel = (r.time_s - predicted[r.point]) / predicted[r.point];
    e->mean_rel_resid += (rel - e->mean_rel_resid) / ++e->runs;  // running mean
  }
  return out;
}

double same_node_noise(const std::vector<NodeRun>& runs) {
  std::map<std::pair<std::size_t, std::string>, std::vector<double>> groups;
  for (const auto& r : runs)
    if (std::isfinite(r.time_s) && r.time_s > 0) groups[{r.point, r.node}].push_back(r.time_s);
  std::vector<double> half;
  for (const auto& [key, t] : groups) {
    if (t.size() < 2) continue;
    const auto [lo, hi] = std::minmax_element(t.begin(), t.end());
    half.push_back((*hi - *lo) / (2 * median_of(t)));
  }
  return half.empty() ? NAN : median_of(half);
}

NodeEffects judge_node_effects(const std::vector<NodeRun>& runs, const std::vector<double>& predicted,
                               double repetition_noise) {
  NodeEffects e;
  e.nodes = node_effects(runs, predicted);
  e.noise = same_node_noise(runs);
  e.noise_from = "same node and configuration";
  if (!std::isfinite(e.noise)) e.noise = repetition_noise, e.noise_from = "repetitions";
  if (!std::isfinite(e.noise)) {
    e.noise_from.clear();
    return e;
  }
  e.threshold = kNodeEffectNoiseFactor * e.noise;
  if (e.nodes.size() > 1)
    for (auto& n : e.nodes) n.flagged = std::fabs(n.mean_rel_resid) > e.threshold;
  return e;
}

std::string node_effects_note(const NodeEffects& e, std::size_t runs_without_node) {
  if (e.nodes.empty())
    return "node effects were not examined: the records name no node (slurm-array sweeps record config.node)";
  std::string o = "node effect, mean (observed - model) / model of each node's runs:";
  for (const auto& n : e.nodes)
    o += fmt::format(" {} {:+.2f}% ({} run{}{})", n.node, 100 * n.mean_rel_resid, n.runs, n.runs == 1 ? "" : "s",
                     n.flagged ? ", FLAGGED" : "");
  if (std::isfinite(e.threshold))
    o += fmt::format("; flagged above {} ({}x the run-to-run noise {} from {})", pct(e.threshold),
                     kNodeEffectNoiseFactor, pct(e.noise), e.noise_from);
  else
    o += "; not judged: no repeated runs to estimate the run-to-run noise";
  if (runs_without_node > 0) o += fmt::format("; {} run(s) name no node", runs_without_node);
  if (e.nodes.size() == 1) o += "; one node only, so no difference between nodes can show";
  return o;
}

std::vector<std::string> node_effect_warnings(const NodeEffects& e) {
  std::vector<std::string> out;
  for (const auto& n : e.nodes)
    if (n.flagged)
      out.push_back(fmt::format(
          "node {}: its {} run(s) sit {:+.2f}% from the model on average, more than {}x the run-to-run noise ({}): "
          "the node is {} than the others, and the fit mixes it in; check the node or fit its runs apart",
          n.node, n.runs, 100 * n.mean_rel_resid, kNodeEffectNoiseFactor, pct(e.noise),
          n.mean_rel_resid > 0 ? "slower" : "faster"));
  return out;
}

nlohmann::json node_effects_json(const NodeEffects& e) {
  if (e.nodes.empty()) return nullptr;
  auto num = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
  nlohmann::json nodes = nlohmann::json::array();
  for (const auto& n : e.nodes)
    nodes.push_back({{"node", n.node}, {"runs", n.runs}, {"mean_rel_resid", n.mean_rel_resid}, {"flagged", n.flagged}});
  return {{"noise", num(e.noise)}, {"noise_from", e.noise_from.empty() ? nlohmann::json(nullptr) : nlohmann::json(e.noise_from)},
          {"threshold", num(e.threshold)}, {"nodes", nodes}};
}

}  // namespace hpcsens::model
