#include "report/memory_view.h"

#include <fmt/core.h>

#include "common/human_units.h"

namespace hpcsens::report {
namespace {

std::string kib_text(double kib) { return human::bytes(kib * 1024); }

// The share of the node's memory its ranks' peaks add up to, -1 when its memory is not known.
double node_pct(const HostMemory& h) {
  return h.total_kib > 0 ? 100.0 * static_cast<double>(h.peak_sum_kib) / static_cast<double>(h.total_kib) : -1;
}

std::string pct_text(const HostMemory& h) {
  const double p = node_pct(h);
  return p < 0 ? "-" : fmt::format("{:.1f}%", p);
}

double mean_kib(const MemoryTotals& m) { return m.ranks ? m.peak_sum_kib / static_cast<double>(m.ranks) : 0; }

}  // namespace

std::map<std::string, HostMemory>::const_iterator peak_node(const MemoryTotals& m) {
  auto best = m.hosts.end();
  for (auto it = m.hosts.begin(); it != m.hosts.end(); ++it)
    if (best == m.hosts.end() || it->second.peak_sum_kib > best->second.peak_sum_kib) best = it;
  return best;
}

std::vector<std::vector<std::string>> memory_summary_rows(const MemoryTotals& m) {
  if (m.ranks == 0) return {};
  std::vector<std::vector<std::string>> rows = {
      {"peak memory per rank: max (VmHWM)", kib_text(static_cast<double>(m.max_kib)), fmt::format("rank {}", m.max_rank)},
      {"peak memory per rank: mean", kib_text(mean_kib(m)), ""},
      {"peak memory per rank: min", kib_text(static_cast<double>(m.min_kib)), fmt::format("rank {}", m.min_rank)}};
  const auto node = peak_node(m);
  std::string where = node->first.empty() ? "host ?" : node->first;
  if (node->second.total_kib > 0)
    where += fmt::format(", {} of its {}", pct_text(node->second), kib_text(static_cast<double>(node->second.total_kib)));
  rows.push_back({"peak node memory (sum of its ranks' peaks)", kib_text(static_cast<double>(node->second.peak_sum_kib)),
                  where});
  return rows;
}

std::vector<std::pair<std::string, std::string>> memory_summary_csv_rows(const MemoryTotals& m) {
  if (m.ranks == 0) return {};
  const auto node = peak_node(m);
  const double p = node_pct(node->second);
  return {{"peak_rss_rank_max_kib", std::to_string(m.max_kib)},
          {"peak_rss_rank_max_rank", std::to_string(m.max_rank)},
          {"peak_rss_rank_mean_kib", fmt::format("{}", mean_kib(m))},
          {"peak_rss_rank_min_kib", std::to_string(m.min_kib)},
          {"peak_rss_rank_min_rank", std::to_string(m.min_rank)},
          {"peak_node_sum_kib", std::to_string(node->second.peak_sum_kib)},
          {"peak_node_host", node->first},
          {"peak_node_total_kib", node->second.total_kib > 0 ? std::to_string(node->second.total_kib) : ""},
          {"peak_node_pct", p < 0 ? "" : fmt::format("{}", p)}};
}

Table memory_node_table(const MemoryTotals& m) {
  Table t;
  if (m.ranks == 0) return t;
  t.title = "Memory per node (sum of its ranks' peak resident memory)";
  t.header = {"host", "ranks", "sum of peaks", "node memory", "share"};
  t.numeric = {false, true, true, true, true};
  for (const auto& [host, h] : m.hosts)
    t.rows.push_back({host.empty() ? "?" : host, std::to_string(h.ranks), kib_text(static_cast<double>(h.peak_sum_kib)),
                      h.total_kib > 0 ? kib_text(static_cast<double>(h.total_kib)) : "-", pct_text(h)});
  return t;
}

nlohmann::json memory_totals_json(const MemoryTotals& m) {
  if (m.ranks == 0) return nullptr;
  nlohmann::json j = {{"ranks", m.ranks},
                      {"peak_rank_max_kib", m.max_kib},
                      {"peak_rank_max_rank", m.max_rank},
                      {"peak_rank_min_kib", m.min_kib},
                      {"peak_rank_min_rank", m.min_rank},
                      {"peak_rank_mean_kib", mean_kib(m)},
                      {"nodes", nlohmann::json::array()}};
  for (const auto& [host, h] : m.hosts) {
    nlohmann::json n = {{"host", host}, {"ranks", h.ranks}, {"peak_sum_kib", h.peak_sum_kib}};
    if (h.total_kib > 0) n["total_kib"] = h.total_kib, n["peak_pct"] = node_pct(h);
    j["nodes"].push_back(std::move(n));
  }
  return j;
}

}  // namespace hpcsens::report
