// `hpcsens report RECORD.json [--format table|csv|md] [--all]`: tables on stdout.
#include <fmt/core.h>

#include <memory>
#include <string>

#include "cli/commands.h"
#include "record/run_record.h"
#include "report/measure_section.h"
#include "report/record_reader.h"
#include "report/run_report.h"

namespace hpcsens::cli {

namespace {
struct ReportArgs {
  std::string path;
  std::string format = "table";
  bool all = false;
};
}  // namespace

void add_report(CLI::App& app, Registry& reg) {
  auto args = std::make_shared<ReportArgs>();
  auto* sub = app.add_subcommand("report", "Show a run record as per-rank and summary tables");
  sub->add_option("record", args->path, "Run record (JSON) written by hpcsens run")->required();
  sub->add_option("--format", args->format, "table, csv or md")->capture_default_str();
  sub->add_flag("--all", args->all, "List every rank (default: summarise jobs with many ranks)");
  reg.add(sub, [args] {
    report::ReportOptions opt;
    opt.format = report::parse_format(args->format);
    opt.all_ranks = args->all;
    const auto rec = report::read_run_record(args->path);  // InputError names file and field
    const std::string text = report::render_run_report(rec, opt) +
                             report::render_measure_section(args->path, opt.format);
    std::fwrite(text.data(), 1, text.size(), stdout);
    return 0;
  });
}

}  // namespace hpcsens::cli
