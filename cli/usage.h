#pragma once
// One CLI: the output format names every subcommand accepts the same way, each subcommand's usage
// line, and the one-line message for a command line CLI11 refused (the unknown option named,
// with the usage line of the subcommand it was given to).
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace hpcsens::cli {

// A --format check that takes "text" and "table" as one format (written "table" afterwards) and
// refuses anything else with the list of what this subcommand writes.
CLI::Validator format_in(const std::vector<std::string>& allowed);

// "hpcsens fit INPUTS... [--model M] ..." for a subcommand name; empty for an unknown one.
std::string usage_line(const std::string& subcommand);

// Writes a subcommand's output: to standard output (escaped for the terminal: names come from input
// files) when `out` is empty, else atomically to `out` (never through a symlink) with
// "hpcsens: SUB: FILE" on stderr. Throws InputError naming `out` when it cannot be written.
void write_output(const std::string& text, const std::string& out, const std::string& subcommand);

// The message for a refused command line: which subcommand, what was wrong, its usage line.
std::string parse_error_message(const CLI::App& app, const CLI::ParseError& e);

}  // namespace hpcsens::cli
