#include "fuzz/parser_feeds.h"

#include <sys/mman.h>
#include <unistd.h>

#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "common/errors.h"
#include "common/json_input.h"
#include "model/dataset.h"
#include "model/mix.h"
#include "model/model_json.h"
#include "model/predict.h"
#include "model/saved_output.h"
#include "common/text_escape.h"
#include "common/text_terminal.h"
#include "mpi/appfile.h"
#include "mpi/launcher_args.h"
#include "preload/account/net_delay_model.h"
#include "record/run_record.h"
#include "sweep/knobs/resctrl_mb.h"
#include "sweep/spec/launch_argv.h"
#include "report/measure_section.h"
#include "report/callsite_view.h"
#include "report/file_view.h"
#include "report/record_reader.h"
#include "report/timeline_section.h"
#include "report/run_report.h"
#include "report/run_scan.h"
#include "run/run_files.h"
#include "sweep/journal/journal.h"
#include "sweep/spec/spec.h"
#include "topdown/event_plan.h"

namespace hpcsens::fuzz {
namespace {

const std::string kSource = "fuzz-input";

void feed_spec(std::string_view in) { sweep::parse_spec_text(std::string(in), kSource); }

void feed_system(std::string_view in) { model::parse_systems(std::string(in), kSource); }

// Model paths in a mix are relative to the mix file: pretend it sits beside the seed models.
void feed_mix(std::string_view in) {
  model::parse_mix(std::string(in), std::string(HPCSENS_FUZZ_SEEDS_DIR) + "/model/mix-input.yaml");
}

void feed_fit_csv(std::string_view in) { model::parse_fit_csv(std::string(in), kSource); }

// /proc/cpuinfo text, which $HPCSENS_CPU_ROOT lets a user supply: parsed and turned into a plan.
void feed_cpuinfo(std::string_view in) { topdown::plan_events("topdown", topdown::parse_cpuinfo(in)); }

// The one-pass scan (report/run_scan.h) on the same bytes, deciding alone (no careful reader to
// fall back on): it refuses what the careful reader refuses, and where that reader accepts, it
// gives the same report, or refuses a malformed measurement field exactly as the measurement
// section alone does.
void feed_record_scan(const std::string& text, const std::string& careful_error) {
  std::string scan_error, report;
  try {
    report = report::render_run_report(report::scan_run_record_text(text, kSource, 0), {});
  } catch (const InputError& e) {
    scan_error = e.what();
  }
  if (!careful_error.empty()) {
    if (scan_error.empty()) throw std::logic_error("the scan accepted a record the careful reader refuses");
    return;
  }
  std::string padded = text, section;
  padded.reserve(text.size() + 64);
  try {
    section = report::render_measure_section(report::measure_only(padded, kSource), report::Format::kTable);
  } catch (const InputError& e) {
    if (scan_error != e.what()) throw std::logic_error("scan: '" + scan_error + "' vs measurement: '" + e.what() + "'");
    return;
  }
  if (!scan_error.empty()) throw std::logic_error("the scan refused a record the careful reader accepts: " + scan_error);
  const auto careful = record::run_record_from_text(text, kSource);
  if (report != report::render_run_report(careful, {}) + section)
    throw std::logic_error("the scan and the careful reader give different reports");
}

// Both record readers on the same bytes: they must agree, on the record or on the message.
void feed_record(std::string_view in) {
  const std::string text(in);
  std::string careful_error, fast_error;
  nlohmann::json careful, fast;
  try {
    careful = record::to_json(record::run_record_from_text(text, kSource));
  } catch (const InputError& e) {
    careful_error = e.what();
  }
  try {
    fast = record::to_json(report::read_run_record_text(text, kSource));
  } catch (const InputError& e) {
    fast_error = e.what();
  }
  if (careful_error != fast_error)
    throw std::logic_error("record readers disagree: '" + careful_error + "' vs '" + fast_error + "'");
  if (careful_error.empty() && careful.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) !=
                                   fast.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))
    throw std::logic_error("record readers read different records");
  feed_record_scan(text, careful_error);
  if (!careful_error.empty()) throw InputError(careful_error);
}

// As model::load_model does after reading the file.
// As model::load_model reads a file: strict and bounded JSON, then the model's fields.
void feed_model(std::string_view in) { model::model_from_json(json_input::parse_strict(in, kSource), kSource); }

// `hpcsens report` of a saved prediction or mix JSON: strict JSON, then every format's reader.
void feed_saved_output(std::string_view in) {
  const auto j = json_input::parse_strict(in, kSource);
  const bool mix = j.is_object() && j.value("schema", nlohmann::json()) == model::kMixSchema;
  for (const char* f : {"table", "md", "csv", "json"})
    mix ? model::render_saved_mix(j, kSource, f) : model::render_saved_prediction(j, kSource, f);
}

// An Open MPI appfile: parsed, then rewritten with a setting in front of every context.
void feed_appfile(std::string_view in) {
  mpi::Appfile a;
  int line = 0;
  std::string why;
  if (in.size() > mpi::kMaxAppfileBytes || !mpi::parse_appfile(in, &a, &line, &why))
    throw InputError(kSource + ":" + std::to_string(line), why);
  const std::string out = mpi::rewrite_appfile(a, {{"A", "1"}, {"B", "x y"}});
  mpi::Appfile again;
  if (!mpi::parse_appfile(out, &again, &line, &why)) {
    if (why.find("longer than") != std::string::npos) return;  // our prefix took a line over the limit
    throw std::logic_error("the rewritten appfile cannot be read: " + why);
  }
  if (again.contexts.size() != a.contexts.size()) throw std::logic_error("the rewritten appfile has other contexts");
}

// The journal reader takes a path: hand it the bytes through an anonymous memory file.
void feed_journal(std::string_view in) {
  const int fd = ::memfd_create("journal", MFD_CLOEXEC);
  if (fd < 0) throw std::runtime_error("memfd_create failed");
  const bool written = ::write(fd, in.data(), in.size()) == static_cast<ssize_t>(in.size());
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  try {
    if (written) sweep::replay_journal(sweep::read_journal_lines(path));
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
}

// The multi-node resctrl launch agent (sweep/spec/launch_argv.h) on the same line: the user's
// words come out unchanged after the inserted option, the application where it was; and the
// version text parser on the raw input.
void feed_launch_agent(const std::vector<std::string>& argv, std::string_view in) {
  (void)sweep::openmpi_major_version(std::string(in));
  std::vector<std::string> out;
  try {
    out = sweep::with_openmpi_launch_agent(argv, {"/opt/hpcsens", "resctrl-join", "--"}, argv.size() % 2 ? 4 : 5);
  } catch (const std::runtime_error&) {
    return;  // the user's own launch agent: refused, said
  }
  if (out.size() != argv.size() + 3 || !std::equal(argv.begin() + 1, argv.end(), out.begin() + 4))
    throw std::logic_error("launch agent: a user word was changed");
  if (sweep::application_index(out) != sweep::application_index(argv) + 3)
    throw std::logic_error("launch agent: the application moved");
}

// A launch line, one word per line: every launcher's option parser (where its options end) and
// what hpcsens rewrites from it. Words after the program must come out unchanged.
void feed_launcher_args(std::string_view in) {
  std::vector<std::string> argv = {"launcher"};
  for (std::size_t start = 0; start <= in.size() && argv.size() < 4096;) {
    const std::size_t nl = std::min(in.find('\n', start), in.size());
    argv.emplace_back(in.substr(start, nl - start));
    start = nl + 1;
  }
  for (auto kind : {mpi::LauncherKind::kOpenMpi, mpi::LauncherKind::kMpichHydra, mpi::LauncherKind::kSlurm}) {
    const std::size_t program = mpi::program_index(kind, argv);
    if (program > argv.size()) throw std::logic_error("program index past the end");
    const auto plan = mpi::plan_launch(kind, argv, {{"A", "1"}, {"B", "x,y"}});
    if (kind == mpi::LauncherKind::kSlurm && program < argv.size() &&
        !std::equal(argv.begin() + long(program), argv.end(), plan.argv.end() - long(argv.size() - program)))
      throw std::logic_error("srun: a word after the program was changed");
  }
  const std::size_t app = mpi::appfile_argument(argv);
  if (app != 0 && (app >= argv.size() || app > mpi::program_index(mpi::LauncherKind::kOpenMpi, argv)))
    throw std::logic_error("--app found among the program's words");
  feed_launch_agent(argv, in);
}

// A file name in an output directory, first line the run id: the patterns of the run's own files
// (run/run_files.h) and the character-boundary cut (common/text_terminal.h) on outside bytes.
void feed_names(std::string_view in) {
  const std::size_t nl = std::min(in.find('\n'), in.size());
  const std::string run_id(in.substr(0, nl)), name(in.substr(std::min(nl + 1, in.size())));
  const bool record = run::is_run_file(name, run_id, run::RunFile::kRecord);
  const bool partial = run::is_run_file(name, run_id, run::RunFile::kPartial);
  if (record && partial) throw std::logic_error("a name matched two kinds");
  for (std::size_t max : {std::size_t{0}, std::size_t{1}, std::size_t{63}, std::size_t{255}, name.size()}) {
    const std::size_t cut = text::cut_at_boundary(name, max);
    if (cut > max || cut > name.size()) throw std::logic_error("cut past the limit");
    if (text::is_valid_utf8(name) && !text::is_valid_utf8(name.substr(0, cut)))
      throw std::logic_error("cut inside a character");
  }
  const std::string shown = text::escape_for_terminal(name);
  for (unsigned char c : shown)
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) throw std::logic_error("control byte shown raw");
}

// A resctrl schemata file (the MB: line memory_backend: resctrl reads under its root): parsed,
// and a line the sweep writes from it must parse back to the same domains.
void feed_resctrl_schemata(std::string_view in) {
  std::vector<sweep::MbDomain> domains;
  try {
    domains = sweep::parse_mb_line(std::string(in));
  } catch (const std::runtime_error& e) {
    throw InputError("schemata", e.what());
  }
  if (domains.empty()) return;
  const auto again = sweep::parse_mb_line(sweep::mb_schemata_line(domains, 50));
  if (again.size() != domains.size()) throw std::logic_error("the written MB: line lost domains");
  for (std::size_t i = 0; i < again.size(); ++i)
    if (again[i].id != domains[i].id || again[i].value != 50) throw std::logic_error("the written MB: line changed");
}

// The per-rank sections the report reads whole (timeline, call sites) from a record's ranks:
// refused with InputError or shown; module paths are dropped first, so no file is opened.
void feed_rank_sections(std::string_view in) {
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("ranks")) return;
  nlohmann::json& ranks = j["ranks"];
  if (ranks.is_array())
    for (auto& r : ranks)
      if (r.is_object() && r.contains("callsites") && r["callsites"].is_array())
        for (auto& s : r["callsites"])
          if (s.is_object()) s.erase("module");
  const auto timelines = report::timelines_of(ranks, kSource);
  report::timeline_html_section(timelines);
  report::timeline_csv(timelines);
  report::timeline_text(timelines, report::Format::kTable);
  const auto sites = report::callsites_of(ranks, kSource);
  report::callsite_html_section(sites);
  report::callsite_csv(sites);
  report::callsite_text(sites, report::Format::kMarkdown, 1.0, 0.5);
  const auto files = report::files_of(ranks, kSource);
  report::files_html_section(files);
  report::files_csv(files);
  report::files_text(files, report::Format::kTable);
}

}  // namespace

// The preload's network-delay variables: the first line is HPCSENS_NET_LATENCY_US, the rest
// HPCSENS_NET_BANDWIDTH_GBS. A refusal must name the variable; an accepted value must be usable.
void feed_net_env(std::string_view in) {
  const auto nl = in.find('\n');
  const std::string lat(in.substr(0, nl)), bw(nl == std::string_view::npos ? "" : in.substr(nl + 1));
  std::string error;
  const auto s = preload::parse_net_delay(lat.c_str(), bw.c_str(), &error);
  if (!s) {
    if (error.find("HPCSENS_NET_") == std::string::npos) throw std::logic_error("unnamed refusal: " + error);
    throw InputError(kSource, error);
  }
  if (!(s->latency_us >= 0 && s->latency_us <= 1e6 && s->ns_per_byte() >= 0 && s->ns_per_byte() <= 1e3))
    throw std::logic_error("accepted an unusable delay");
}

const std::vector<ParserFeed>& parser_feeds() {
  static const std::vector<ParserFeed> feeds = {
      {"spec", feed_spec},     {"system", feed_system}, {"mix", feed_mix},         {"fit_csv", feed_fit_csv},
      {"record", feed_record}, {"model", feed_model},   {"journal", feed_journal},
      {"appfile", feed_appfile}, {"launcher_args", feed_launcher_args}, {"names", feed_names},
      {"cpuinfo", feed_cpuinfo}, {"resctrl_schemata", feed_resctrl_schemata},
      {"net_env", feed_net_env},
      {"rank_sections", feed_rank_sections},
      {"saved_output", feed_saved_output},
  };
  return feeds;
}

Feed find_feed(std::string_view name) {
  for (const auto& f : parser_feeds())
    if (name == f.name) return f.feed;
  return nullptr;
}

}  // namespace hpcsens::fuzz
