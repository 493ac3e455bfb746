#pragma once
// Helpers of the record scan that need no JSON parser of their own: the record-level checks over
// the compact rows, and one rank read again from the file's bytes.
#include <string>
#include <string_view>
#include <vector>

#include "report/run_scan.h"

namespace hpcsens::report {

// record::validate's checks and messages over the rows (the scan keeps no RankRecord).
void validate_rows(const RunScan& scan, const std::string& source);

// Adds one rank's I/O call `name` to the totals by name.
void add_io_call(std::vector<IoCallTotal>& calls, std::string_view name, std::uint64_t count, std::uint64_t bytes,
                 double seconds);

// A rank's "io" classes, "cpu" and "memory" objects (from a parsed rank object or a RankRecord's
// extra) into `m`, by the rules the scan applies (CpuTotals::add_rank); `busy_s`: the rank's
// wall - io; `rank`: its number (< 0: the object's own "rank").
void add_measure_json(MeasureTotals& m, const nlohmann::json& rank, const std::string& host, double busy_s,
                      std::int64_t rank_number = -1);

// scan_of(rec) with the "io" classes and "cpu" objects the careful reader kept in each rank's
// `extra` (the fast reader keeps none): what the answer needs beyond the typed fields.
RunScan scan_with_extras(const record::RunRecord& rec);

// The rank object of `row` from the record's bytes (padded as simdjson wants them).
record::RankRecord rank_from_text(const std::string& text, const RankRow& row, const std::string& source);

}  // namespace hpcsens::report
