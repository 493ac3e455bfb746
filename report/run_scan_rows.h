#pragma once
// Helpers of the record scan that need no JSON parser of their own: the record-level checks over
// the compact rows, and one rank read again from the file's bytes.
#include <string>

#include "report/run_scan.h"

namespace hpcsens::report {

// record::validate's checks and messages over the rows (the scan keeps no RankRecord).
void validate_rows(const RunScan& scan, const std::string& source);

// The rank object of `row` from the record's bytes (padded as simdjson wants them).
record::RankRecord rank_from_text(const std::string& text, const RankRow& row, const std::string& source);

}  // namespace hpcsens::report
