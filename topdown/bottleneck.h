#pragma once
// Top-Down bottleneck section of a report: per rank / per group of alike ranks, and a one-line
// job verdict. Computed from the raw counters in a run record (pure; no PAPI).
#include <string>

#include "record/run_record.h"

namespace hpcsens::topdown {

enum class TableFormat { kText, kCsv, kMarkdown };

// Text for `hpcsens report` and the summary after `hpcsens run`. Says why when the record has
// no Top-Down counters (e.g. "Top-Down unavailable: no hardware PMU"). `all_ranks` lists every
// rank instead of groups.
std::string bottleneck_section(const record::RunRecord& rec, TableFormat format, bool all_ranks);

}  // namespace hpcsens::topdown
