#include "cli/report_input.h"

#include <fmt/core.h>

#include <algorithm>
#include <filesystem>

#include "common/errors.h"
#include "common/text_escape.h"

namespace hpcsens::cli {

const std::vector<std::string>& report_csv_tables() {
  static const std::vector<std::string> tables = {"ranks",    "summary",  "calls",     "counters",
                                                  "topdown",  "timeline", "callsites", "files",
                                                  "partners", "msg_sizes", "regions",  "aggregate",
                                                  "callsite_stats", "callsite_ranks"};
  return tables;
}

std::string report_input(const std::string& input) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(input, ec)) return input;
  const fs::path dir(input);
  for (const char* sweep : {"journal.jsonl", "records", "model.json"})
    if (fs::exists(dir / sweep, ec)) return input;  // a sweep directory: its own page and view
  std::vector<std::string> records;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    const bool json = name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0;
    const bool partial = name.size() > 13 && name.compare(name.size() - 13, 13, ".partial.json") == 0;
    if (json && !partial && e.is_regular_file(ec) && !e.is_symlink(ec)) records.push_back(name);
  }
  std::sort(records.begin(), records.end());
  if (records.size() == 1) {
    const std::string path = (dir / records.front()).string();
    fmt::print(stderr, "hpcsens: report: {} holds one run record: {}\n", text::escape_for_message(input),
               text::escape_for_message(records.front()));
    return path;
  }
  const std::string not_sweep = "is not a sweep directory (no journal.jsonl, records/ or model.json)";
  if (records.empty())
    throw InputError(input, "holds no run record (NAME.json) and " + not_sweep +
                                ": give a record file, e.g. the path hpcsens run printed");
  std::string names;
  for (std::size_t i = 0; i < records.size() && i < 5; ++i) names += (i ? ", " : "") + records[i];
  if (records.size() > 5) names += fmt::format(" and {} more", records.size() - 5);
  throw InputError(input, fmt::format("holds {} run records ({}) and {}: name the one to report", records.size(), names,
                                      not_sweep));
}

CLI::Validator report_table_check() {
  std::string list;
  for (const auto& t : report_csv_tables()) list += (list.empty() ? "" : ", ") + t;
  return CLI::Validator(
      [list](std::string& name) -> std::string {
        const auto& all = report_csv_tables();
        if (std::find(all.begin(), all.end(), name) != all.end()) return "";
        return "unknown table '" + name + "' (expected " + list + ")";
      },
      "TABLE", "TABLE");
}

void check_report_options(const std::string& format, const std::string& table, bool summary) {
  if (!table.empty() && format != "csv")
    throw InputError("--table", "only with --format csv (one tidy table per call)");
  if (summary && format != "table" && format != "md")
    throw InputError("--summary", "only with --format table or md; --format " + format +
                                      " holds the answer in full (JSON: its 'answer' object)");
}

}  // namespace hpcsens::cli
