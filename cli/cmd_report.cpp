// `hpcsens report INPUT [--format table|csv|md|json|html] [--table NAME] [-o FILE] [--all]`.
// Every format describes a run record; text, Markdown, JSON and HTML also a model or a sweep
// directory (its answer object, report/model_view.h); every format but --table a prediction or mix
// JSON (what predict printed, read back: model/saved_output.h).
#include <fmt/core.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "cli/report_input.h"
#include "cli/usage.h"
#include "common/errors.h"
#include "common/safe_file.h"
#include "common/text_terminal.h"
#include "report/html_report.h"
#include "report/run_scan.h"
#include "report/record_output.h"
#include "report/record_reader.h"
#include "report/run_report.h"
#include "report/run_report_file.h"
#include "report/callsite_view.h"
#include "report/file_view.h"
#include "report/raw_ranks.h"
#include "report/timeline_section.h"

namespace hpcsens::cli {

namespace {
struct ReportArgs {
  std::string path;
  std::string format = "table";
  std::string table;
  std::string out;
  bool all = false;
  bool summary = false;
};

// A file that does not start like a JSON object (a CSV, a log) is refused before any parser
// reports it in its own words. The look opens without blocking and checks the type first: a FIFO
// is refused, not waited on.
void check_looks_like_json(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return;
  const std::string head = safe_file::read_input_head(path, 4096);
  const auto first = head.find_first_not_of(" \t\r\n\f\v");
  if (first != std::string::npos && head[first] != '{')
    throw InputError(path, "does not hold a JSON object (it does not start with '{'; a CSV or text file?)");
}

std::string render(const ReportArgs& a) {
  check_looks_like_json(a.path);
  if (a.format == "html") return report::html_report(a.path);
  if (!a.table.empty() && a.format != "csv")
    throw InputError("--table", "only with --format csv (one tidy table per call)");
  // A sweep directory or a model: its answer object as text, Markdown or JSON (report/model_view.h);
  // a prediction or mix: what predict printed in that format, read back (model/saved_output.h).
  if (a.table.empty())
    if (auto view = report::sweep_or_model_report(a.path, a.format, a.summary)) return *view;
  if (a.format == "json") return report::record_report_json_file(a.path).dump(1) + "\n";
  if (a.table == "timeline") return report::timeline_csv(report::timelines_of(report::read_raw_ranks(a.path), a.path));
  if (a.table == "files") return report::files_csv(report::files_of(report::read_raw_ranks(a.path), a.path));
  if (a.table == "callsites") return report::callsite_csv(report::callsites_of(report::read_raw_ranks(a.path), a.path));
  if (a.table == "callsite_stats") {
    const auto ranks = report::read_raw_ranks(a.path);
    const auto [wall, mpi] = report::sum_wall_and_mpi(ranks);
    return report::callsite_stats_csv(report::summarize_sites(report::callsites_of(ranks, a.path)), wall, mpi);
  }
  if (a.table == "callsite_ranks")
    return report::callsite_ranks_csv(report::summarize_sites(report::callsites_of(report::read_raw_ranks(a.path), a.path)));
  if (!a.table.empty()) {
    const auto table = report::parse_csv_table(a.table);  // before reading a large record
    return report::tidy_csv(report::scan_run_record(a.path), table);
  }
  report::ReportOptions opt;
  opt.format = report::parse_format(a.format);
  opt.all_ranks = a.all;
  opt.summary_only = a.summary;
  // One pass over the file: compact rows and sums, every section from them; the timeline's bins
  // and the call sites are read apart (run_report_file.h).
  return report::render_run_report_file(a.path, opt);
}
}  // namespace

void add_report(CLI::App& app, Registry& reg) {
  auto args = std::make_shared<ReportArgs>();
  auto* sub = app.add_subcommand("report", "Show a run record as tables, JSON or CSV; any hpcsens output as one "
                                           "self-contained HTML page");
  sub->add_option("input", args->path,
                  "Run record (JSON), model JSON, sweep directory, or a prediction/mix JSON from predict --format json")
      ->required();
  sub->add_option("--format", args->format, "table (or text), md, csv, json or html")
      ->capture_default_str()
      ->transform(format_in({"table", "md", "csv", "json", "html"}));
  std::string tables;
  for (const auto& t : report_csv_tables()) tables += (tables.empty() ? "" : " | ") + t;
  sub->add_option("--table", args->table, "with --format csv: " + tables)
      ->check(report_table_check());
  sub->add_option("-o,--output", args->out, "write to this file instead of standard output");
  sub->add_flag("--all", args->all, "List every rank (default: summarise jobs with many ranks)");
  sub->add_flag("--summary", args->summary, "Only the answer and the advice (text and Markdown)");
  reg.add(sub, [args] {
    check_report_options(args->format, args->table, args->summary);
    args->path = report_input(args->path);  // a run's -o directory with one record: that record
    write_output(render(*args), args->out, "report");
    return 0;
  });
}

}  // namespace hpcsens::cli
