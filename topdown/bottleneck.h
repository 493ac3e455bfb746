#pragma once
// Top-Down bottleneck section of a report: per rank / per group of alike ranks, and a one-line
// job verdict. Computed from the raw counters in a run record (pure; no PAPI).
#include <string>
#include <vector>

#include "record/run_record.h"
#include "topdown/metrics.h"

namespace hpcsens::topdown {

enum class TableFormat { kText, kCsv, kMarkdown };

// Text for `hpcsens report` and the summary after `hpcsens run`. Says why when the record has
// no Top-Down counters (e.g. "Top-Down unavailable: no hardware PMU"). `all_ranks` lists every
// rank instead of groups.
std::string bottleneck_section(const record::RunRecord& rec, TableFormat format, bool all_ranks);

// The same as data, for renderers of their own (the report's 120-column text tables): a table
// (empty header when there is none) and `line`, the job verdict or why Top-Down is missing.
// `csv` gives unrounded cells and the full rank lists.
struct BottleneckData {
  std::string title;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::string line;
};
BottleneckData bottleneck_data(const record::RunRecord& rec, bool csv, bool all_ranks);

// Ranks that behave alike: same flagged path and every level-1 value (or stall ratio) within
// `tolerance` of the group's first rank. Unavailable ranks form one group of their own;
// mismeasured ranks share a group only when their out-of-range values are the same.
// Input: per-rank metrics in rank order; output: index lists, groups in order of first member.
std::vector<std::vector<std::size_t>> group_alike(const std::vector<TopdownMetrics>& ranks,
                                                  double tolerance = 0.05);

// "0-3,5,7-8" for sorted rank numbers.
std::string rank_ranges(const std::vector<int>& ranks);

}  // namespace hpcsens::topdown
