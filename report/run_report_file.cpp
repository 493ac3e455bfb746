#include "report/run_report_file.h"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "report/callsite_view.h"
#include "report/file_view.h"
#include "report/raw_ranks.h"
#include "report/run_scan.h"
#include "report/timeline_section.h"

namespace hpcsens::report {

std::string render_run_report_file(const std::string& path, const ReportOptions& options) {
  std::string out = render_run_report(scan_run_record(path), options);
  if (!options.summary_only && std::filesystem::file_size(path) <= kRawRanksMax) {
    const nlohmann::json ranks = read_raw_ranks(path);
    const auto [wall, mpi] = sum_wall_and_mpi(ranks);
    const std::string more = files_text(files_of(ranks, path), options.format) +
                             callsite_text(callsites_of(ranks, path), options.format, wall, mpi) +
                             timeline_text(timelines_of(ranks, path), options.format);
    // The report above may end without a blank line (the Top-Down verdict): one before these.
    if (!more.empty() && options.format == Format::kTable && out.size() > 1 && out.compare(out.size() - 2, 2, "\n\n") != 0)
      out += "\n";
    out += more;
  }
  return out;
}

}  // namespace hpcsens::report
