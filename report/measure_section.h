#pragma once
// The text report's section for the record fields of schema_minor 2 (docs/record-format.md):
// I/O by class, message-size histograms, the heaviest point-to-point partners and the regions
// and MPI_Pcontrol phases. Summed while the record is scanned (report/measure_scan.h), so its
// memory does not grow with the job (a 1,000,000-rank record included).
#include <string>

#include "report/run_scan.h"
#include "report/table.h"

namespace hpcsens::report {

// "" when the record has none of these fields.
std::string render_measure_section(const MeasureTotals& totals, Format format);
// The same from the file (only its ranks' measurement fields are read). Throws InputError
// naming the file when it cannot be read.
std::string render_measure_section(const std::string& record_path, Format format);

}  // namespace hpcsens::report
