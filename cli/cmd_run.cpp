// `hpcsens run [--out DIR] [--events SPEC] [--quiet] [--timeout S] [--keep-job-status] -- LAUNCHER ARGS...`
// Everything we print goes to stderr: the job's stdout is passed through untouched.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "common/errors.h"
#include "common/preload_env.h"
#include "common/run_id.h"
#include "common/text_escape.h"
#include "record/run_record.h"
#include "report/callsite_names.h"
#include "report/record_reader.h"
#include "report/run_scan.h"
#include "report/run_report.h"
#include "report/run_report_file.h"
#include "run/run_job.h"
#include "topdown/event_plan.h"

namespace hpcsens::cli {

namespace {

struct RunOptions {
  run::RunRequest request;
  bool events_given = false;
  bool all = false;
  bool keep_job_status = false;
  bool summary = false;
  std::vector<std::string> command;
};

// "default | none | topdown | topdown-l1 | a comma list of PAPI event names", from the planner's list.
std::string events_choices() {
  std::string o;
  for (const char* p : topdown::kEventPresets) o += std::string(p) + " | ";
  return o + "a comma list of PAPI event names (e.g. PAPI_TOT_CYC,PAPI_TOT_INS)";
}

// Refuses specs the preload would misread: an empty spec, empty items ("a,,b", ","), and names
// with blanks inside ("a b" is not a PAPI name). Checked before the job starts.
void check_events_spec(const std::string& spec) {
  if (spec.find_first_not_of(" \t") == std::string::npos)
    throw InputError("--events", "empty (use " + events_choices() + ")");
  size_t start = 0;
  while (true) {
    const size_t comma = spec.find(',', start);
    std::string item = spec.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const size_t b = item.find_first_not_of(" \t");
    const size_t e = item.find_last_not_of(" \t");
    item = b == std::string::npos ? std::string() : item.substr(b, e - b + 1);
    if (item.empty())
      throw InputError("--events", "empty event name in '" + spec + "' (a comma list of PAPI names, e.g. PAPI_TOT_CYC,PAPI_TOT_INS)");
    if (item.find_first_of(" \t") != std::string::npos)
      throw InputError("--events", "event name '" + item + "' contains a blank (separate events with commas)");
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
}

// A program path on the launch line that does not exist here: launchers report that in their own
// words, or as an exit status that reads like a signal (Open MPI: 132), so say it first.
void warn_missing_program(const std::vector<std::string>& argv) {
  for (std::size_t i = 1; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    const bool path_like = a.rfind("./", 0) == 0 || a.rfind("../", 0) == 0;
    std::error_code ec;
    if (path_like && !std::filesystem::exists(a, ec)) {
      fmt::print(stderr, "hpcsens: warning: {} does not exist in {}; if the job fails at once, that is why (a "
                         "missing program, not a signal)\n",
                 text::escape_for_message(a), text::escape_for_message(std::filesystem::current_path(ec).string()));
      return;
    }
  }
}

int run_command(CLI::App* sub, RunOptions& opt) {
  // After `--`, CLI11 puts the whole command, in order, into the positional and leaves one "--"
  // marker in remaining(). Anything else left over means an option of the job's came without
  // `--`, and CLI11 would have reordered it: refuse rather than run a different command.
  std::vector<std::string> argv = opt.command;
  const auto rest = sub->remaining();
  // An option of ours CLI11 does not know stays in remaining() ahead of the "--" marker.
  if (!rest.empty() && rest.front().size() > 1 && rest.front()[0] == '-' && rest.front() != "--" &&
      std::find(rest.begin(), rest.end(), "--") != rest.end())
    throw InputError("hpcsens run", "unknown option " + rest.front() +
                                        " (usage: hpcsens run [-o DIR] [--events SPEC] [--quiet] [--summary] [--all] "
                                        "[--timeout S] [--keep-job-status] -- LAUNCHER ARGS...)");
  if (!rest.empty() && !(rest.size() == 1 && rest.front() == "--"))
    throw InputError("hpcsens run", "put -- before the job's command: hpcsens run [options] -- " +
                                        (argv.empty() ? std::string("LAUNCHER") : argv.front()) + " ARGS...");
  if (argv.empty())
    throw InputError("hpcsens run", "no command given (usage: hpcsens run [options] -- LAUNCHER ARGS...)");
  if (!std::isfinite(opt.request.timeout_s) || opt.request.timeout_s < 0)
    throw InputError("--timeout", "must be a finite number of seconds >= 0 (0: never)");
  if (opt.events_given) check_events_spec(opt.request.events);
  if (opt.request.stack_depth < 1 || opt.request.stack_depth > 8)
    throw InputError("--stack-depth", fmt::format("{} is not a depth from 1 to 8 (frames per call site, as mpiP's -k)",
                                                  opt.request.stack_depth));
  // Names while the programs that ran are still in place (issue 29 item 7).
  opt.request.name_sites = [](nlohmann::json& record) { report::name_callsites(record); };
  opt.request.argv = argv;
  warn_missing_program(argv);
  // HPCSENS_RUN_ID names the record, as it does for the preload used on its own.
  if (const char* id = std::getenv(env::kRunId); id != nullptr && opt.request.run_id.empty()) {
    if (const std::string problem = run_id_problem(id); !problem.empty())
      throw InputError(env::kRunId, std::string("'") + id + "' " + problem);
    opt.request.run_id = id;
  }
  const run::RunResult res = run::run_job(opt.request);
  if (res.refused) throw InputError("hpcsens run", res.error);
  if (!res.record_path.empty() && !opt.request.quiet) {
    try {
      // The same reader and sections as `hpcsens report RECORD` (measurement sections included).
      report::ReportOptions ro;
      ro.all_ranks = opt.all;
      ro.summary_only = opt.summary;
      fmt::print(stderr, "\n{}", report::render_run_report_file(res.record_path, ro));
    } catch (const InputError& e) {
      fmt::print(stderr, "hpcsens: cannot show the record: {}\n", e.what());
    }
  }
  if (!res.error.empty() && !res.error_warned)
    fmt::print(stderr, "hpcsens: {}\n", text::escape_for_message(res.error));
  if (!res.record_path.empty())
    fmt::print(stderr, "hpcsens: record: {}{}\n", res.record_path, res.complete ? "" : " (INCOMPLETE)");
  const int status = run::run_exit_status(res, opt.keep_job_status);
  if (status != res.exit_status)
    fmt::print(stderr,
               "hpcsens: no run record was written; the job exited with status {}; hpcsens exits with {} "
               "(--keep-job-status returns the job's status)\n",
               res.exit_status, status);
  return status;
}

}  // namespace

void add_run(CLI::App& app, Registry& reg) {
  auto opt = std::make_shared<RunOptions>();
  auto* sub = app.add_subcommand("run", "Run an MPI job with per-rank measurement (no recompiling)");
  sub->add_option("-o,--output,--out", opt->request.out_dir, "Directory for the run record (--out: the older name)")
      ->capture_default_str();
  sub->add_option("--events", opt->request.events, "Counter events: " + events_choices())
      ->capture_default_str()
      ->each([opt](const std::string&) { opt->events_given = true; });
  sub->add_flag("--callsites", opt->request.callsites,
                "Time MPI calls per call site (file:line of the caller, mpiP-style; HPCSENS_CALLSITES=1 does the same)");
  sub->add_option("--stack-depth", opt->request.stack_depth,
                  "Frames per call site, 1-8 (mpiP's -k; implies --callsites; HPCSENS_STACK_DEPTH=K does the same)")
      ->capture_default_str();
  sub->add_flag("--quiet", opt->request.quiet, "Print only the record path (and problems)");
  sub->add_flag("--all", opt->all, "List every rank in the table printed afterwards");
  sub->add_flag("--summary", opt->summary, "Print only the answer and the advice afterwards, not the tables");
  sub->add_option("--timeout", opt->request.timeout_s, "Stop the job after this many seconds (0: never)");
  sub->add_flag("--keep-job-status", opt->keep_job_status,
                "Exit with the job's status even when no record was written (default: 74)");
  // Everything from the launcher word on belongs to the job, including its own options.
  sub->add_option("command", opt->command, "LAUNCHER ARGS... (after --)");
  sub->prefix_command();
  sub->footer("Example: hpcsens run --out results -- mpirun -np 4 ./app input.dat\n");
  reg.add(sub, [sub, opt] { return run_command(sub, *opt); });
}

}  // namespace hpcsens::cli
