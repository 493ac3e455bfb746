#pragma once
// The text report of one record file, as `hpcsens report RECORD` and `hpcsens run` print it: the
// sections built from the compact scan, then the files, the call sites and the timeline, read from
// the ranks whole (records up to kRawRanksMax, as the HTML page does).
#include <string>

#include "report/run_report.h"

namespace hpcsens::report {

std::string render_run_report_file(const std::string& path, const ReportOptions& options);

}  // namespace hpcsens::report
