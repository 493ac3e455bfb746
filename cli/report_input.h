#pragma once
// What `hpcsens report INPUT` reads, and which options combine: a run's -o directory holding one
// record reads that record; options that cannot combine are errors (exit 2), not silently dropped.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace hpcsens::cli {

// Every table `report --format csv --table NAME` writes: the --table help and its check use this.
const std::vector<std::string>& report_csv_tables();
// The --table check: "unknown table 'all' (expected ranks, summary, ...)" from that list.
CLI::Validator report_table_check();

// INPUT as given, or, for a directory that is not a sweep (no journal.jsonl, records/ or
// model.json) and holds exactly one run record (NAME.json, not .partial.json) directly inside,
// that record (said on stderr). A directory with none or several is InputError naming them.
std::string report_input(const std::string& input);

// Throws InputError for options that cannot go together: --table without --format csv, --summary
// with anything but table or md.
void check_report_options(const std::string& format, const std::string& table, bool summary);

}  // namespace hpcsens::cli
