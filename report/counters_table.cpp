// Counter values recorded per rank (PAPI events, software or hardware): summary over ranks and
// the values per rank. Pure functions of the record's scan.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "report/counter_units.h"
#include "report/run_report.h"

namespace hpcsens::report {
namespace {

std::vector<std::string> sorted_names(const RunScan& s) {
  std::vector<std::string> names = s.counter_names;
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

Table counter_summary_table(const RunScan& s) {
  Table t;
  t.title = fmt::format("Counters over {} ranks{}", s.rows.size(),
                        s.header.emulated ? " (EMULATED record)" : "");
  t.header = {"counter", "unit", "ranks", "min", "min on rank", "mean", "max", "max on rank", "sum"};
  t.numeric = {false, false, true, true, true, true, true, true, true};
  for (const auto& [name, a] : s.counter_totals)
    t.rows.push_back({name, counter_unit(name), std::to_string(a.ranks), counter_value_text(a.min), std::to_string(a.min_rank),
                      counter_value_text(a.sum / static_cast<double>(a.ranks)), counter_value_text(a.max),
                      std::to_string(a.max_rank), counter_value_text(a.sum)});
  return t;
}

std::vector<Table> counter_rank_tables(const RunScan& s, const std::vector<std::size_t>& indices,
                                       std::size_t per_table) {
  const auto names = sorted_names(s);
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
      t.header.push_back(names[c] + " [" + counter_unit(names[c]) + "]");
      t.numeric.push_back(true);
    }
    for (std::size_t i : indices) {
      const auto counters = counters_of(s, i);
      std::vector<std::string> row = {std::to_string(s.rows[i].rank)};
      for (std::size_t c = first; c < last; ++c) {
        const auto it = counters.find(names[c]);
        row.push_back(it == counters.end() ? "-" : counter_value_text(it->second));
      }
      t.rows.push_back(std::move(row));
    }
    out.push_back(std::move(t));
  }
  return out;
}

Table counter_summary_table(const record::RunRecord& rec) { return counter_summary_table(scan_of(rec)); }
std::vector<Table> counter_rank_tables(const record::RunRecord& rec, const std::vector<std::size_t>& indices,
                                       std::size_t per_table) {
  return counter_rank_tables(scan_of(rec), indices, per_table);
}

}  // namespace hpcsens::report
