// Counter values recorded per rank (PAPI events, software or hardware): summary over ranks and
// the values per rank. Pure functions of the record.
#include <fmt/core.h>

#include <cmath>
#include <limits>
#include <map>

#include "report/run_report.h"

namespace hpcsens::report {
namespace {

// Counter values are counts or scaled counts: integers print without decimals.
std::string counter_cell(double v) {
  if (!std::isfinite(v)) return "-";
  if (v == static_cast<double>(static_cast<long long>(v)) && std::fabs(v) < 9e15) return fmt::format("{:.0f}", v);
  return fmt::format("{:.6g}", v);
}

std::vector<std::string> counter_names(const record::RunRecord& rec) {
  std::map<std::string, bool> seen;
  for (const auto& r : rec.ranks)
    for (const auto& [name, v] : r.counters) seen.emplace(name, true);
  std::vector<std::string> names;
  for (const auto& [name, b] : seen) names.push_back(name);
  return names;
}

}  // namespace

Table counter_summary_table(const record::RunRecord& rec) {
  struct Agg {
    std::size_t n = 0;
    double sum = 0, min = std::numeric_limits<double>::infinity(), max = -std::numeric_limits<double>::infinity();
    int min_rank = -1, max_rank = -1;
  };
  std::map<std::string, Agg> by_name;
  for (const auto& r : rec.ranks) {
    for (const auto& [name, v] : r.counters) {
      Agg& a = by_name[name];
      ++a.n;
      a.sum += v;
      if (v < a.min) a.min = v, a.min_rank = r.rank;
      if (v > a.max) a.max = v, a.max_rank = r.rank;
    }
  }
  Table t;
  t.title = fmt::format("Counters over {} ranks{}", rec.ranks.size(),
                        rec.emulated ? " (EMULATED record)" : "");
  t.header = {"counter", "ranks", "min", "min on rank", "mean", "max", "max on rank", "sum"};
  t.numeric = {false, true, true, true, true, true, true, true};
  for (const auto& [name, a] : by_name)
    t.rows.push_back({name, std::to_string(a.n), counter_cell(a.min), std::to_string(a.min_rank),
                      counter_cell(a.sum / static_cast<double>(a.n)), counter_cell(a.max),
                      std::to_string(a.max_rank), counter_cell(a.sum)});
  return t;
}

std::vector<Table> counter_rank_tables(const record::RunRecord& rec, const std::vector<std::size_t>& indices,
                                       std::size_t per_table) {
  const auto names = counter_names(rec);
  std::vector<Table> out;
  for (std::size_t first = 0; first < names.size(); first += per_table) {
    const std::size_t last = std::min(names.size(), first + per_table);
    Table t;
    t.title = names.size() > per_table
                  ? fmt::format("Counters per rank ({}-{} of {} counters)", first + 1, last, names.size())
                  : "Counters per rank";
    t.header = {"rank"};
    t.numeric = {true};
    for (std::size_t c = first; c < last; ++c) {
      t.header.push_back(names[c]);
      t.numeric.push_back(true);
    }
    for (std::size_t i : indices) {
      const auto& r = rec.ranks[i];
      std::vector<std::string> row = {std::to_string(r.rank)};
      for (std::size_t c = first; c < last; ++c) {
        const auto it = r.counters.find(names[c]);
        row.push_back(it == r.counters.end() ? "-" : counter_cell(it->second));
      }
      t.rows.push_back(std::move(row));
    }
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace hpcsens::report
