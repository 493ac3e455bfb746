#pragma once
// The counters' running fraction (time_running / time_enabled) of a run, said once for the whole
// run: the least fraction over the ranks that recorded one, and for the others why it is not
// known (ranks[].counter_running_fraction and _reason, docs/record-format.md). Pure functions of
// the record's scan; every format (text, Markdown, JSON, the page) renders the same summary.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/run_scan.h"

namespace hpcsens::report {

struct RunningFractionSummary {
  std::size_t ranks = 0;  // ranks in the record
  std::size_t known = 0;  // ranks with a recorded fraction
  double least = 1;       // the least fraction of any event on those ranks
  int least_rank = -1;
  // (reason, ranks) in first-seen order: how the known fractions are known, and why the others
  // are not (record::running_fraction_reason: "no counters: ..." where nothing was counted).
  std::vector<std::pair<std::string, std::size_t>> known_because;
  std::vector<std::pair<std::string, std::size_t>> unknown_because;
};

RunningFractionSummary running_fraction_summary(const RunScan& s);
// "Counter running fraction: 100.0 % at least (rank 0), 4 of 4 ranks (pinned group: ...)" or
// "Counter running fraction: not known on 4 of 4 ranks: no counters: ..."; "" without ranks.
// Quoted reasons are escaped (they come from the file).
std::string running_fraction_line(const RunningFractionSummary& f);
// {"ranks", "known", "least" (null when none known), "least_rank", "known_because": [{reason,
// ranks}], "unknown_because": [...]}.
nlohmann::json running_fraction_json(const RunningFractionSummary& f);

}  // namespace hpcsens::report
