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

// Why a flagged path stops at level 1 when its node's level-2 children were not counted ("" when
// they were, or the path is empty or longer): e.g. "its events did not fit on the counters beside
// level 1 (on Zen 4/5 level 1 takes all six)". A path that stops there says so on the path itself,
// never as if no child were over its threshold.
std::string level2_not_counted(const TopdownMetrics& m, const std::vector<std::string>& path);
// path_text(path) with " > level 2 not counted (why)" where that applies.
std::string path_text_with_gaps(const TopdownMetrics& m, const std::vector<std::string>& path);

// "0-3,5,7-8" for sorted rank numbers.
std::string rank_ranges(const std::vector<int>& ranks);

}  // namespace hpcsens::topdown
