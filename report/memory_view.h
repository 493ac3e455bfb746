#pragma once
// Memory per rank and per node in the report (from MemoryTotals, report/memory_totals.h): the
// summary's rows, the tidy summary CSV's metrics, derived.memory of the JSON report and a table
// of nodes. Pure functions of the totals.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/memory_totals.h"
#include "report/table.h"

namespace hpcsens::report {

// The host with the largest sum of its ranks' peaks, or hosts.end() when none.
std::map<std::string, HostMemory>::const_iterator peak_node(const MemoryTotals& m);

// The summary's rows (metric, value, unit): peak per rank (max with its rank, mean, min) and the
// peak node's sum of peaks with its share of the node's memory. None when no rank has a peak.
std::vector<std::vector<std::string>> memory_summary_rows(const MemoryTotals& m);
// The same as (metric, value) pairs for the tidy summary CSV, in KiB, unrounded.
std::vector<std::pair<std::string, std::string>> memory_summary_csv_rows(const MemoryTotals& m);
// "Memory per node": host, ranks, sum of peaks, node memory, share. Empty title: no peaks.
Table memory_node_table(const MemoryTotals& m);
// derived.memory: {"ranks", "peak_rank_max_kib", "peak_rank_max_rank", "peak_rank_min_kib",
// "peak_rank_min_rank", "peak_rank_mean_kib", "nodes": [{host, ranks, peak_sum_kib, total_kib,
// peak_pct}]}; null when no rank has a peak.
nlohmann::json memory_totals_json(const MemoryTotals& m);

}  // namespace hpcsens::report
