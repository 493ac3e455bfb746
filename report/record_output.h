#pragma once
// Machine output of a run record: `report RECORD --format json` (the validated record as read
// plus what the report derives from it) and tidy CSV, one table per call
// (`--format csv --table ranks|summary|calls|counters|topdown`): plain column names with units,
// numbers unrounded (shortest text that reads back to the same double), one value per cell.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "record/run_record.h"
#include "report/run_scan.h"

namespace hpcsens::report {

// The record's own keys (record::to_json: every section it holds, per-rank files, call sites,
// partners, message sizes, timeline, regions and cpu included when `rec` was read by
// record::load_run_record) plus "derived" (imbalance recomputed from ranks, distributions over
// ranks, MPI time by call, I/O by operation and interface, files over ranks, Top-Down per rank)
// and "answer" (headline, tone, caveats, advice: the object the text and the page render).
// `source` names the file in messages.
nlohmann::json record_report_json(const record::RunRecord& rec, const std::string& source = "record");
// The same for the record at `path` (`report --format json`).
nlohmann::json record_report_json_file(const std::string& path);

enum class CsvTable { kRanks, kSummary, kCalls, kCounters, kTopdown, kPartners, kMsgSizes, kRegions, kAggregate };
// "ranks" | "summary" | "calls" | "counters" | "topdown" | "partners" | "msg_sizes" | "regions" | "aggregate";
// else InputError naming --table.
CsvTable parse_csv_table(const std::string& name);
std::string tidy_csv(const record::RunRecord& rec, CsvTable table);
// The same from the record's scan (the ranks read back one at a time).
std::string tidy_csv(const RunScan& scan, CsvTable table);

// One CSV row: cells quoted where they need it (csv_cell), joined by commas, with a newline.
std::string csv_line(const std::vector<std::string>& cells);

// One Top-Down result per rank (rec.ranks order), the event table looked up once per set.
std::vector<nlohmann::json> topdown_per_rank(const record::RunRecord& rec);

}  // namespace hpcsens::report
