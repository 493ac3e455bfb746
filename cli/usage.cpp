#include "cli/usage.h"

#include <fmt/core.h>

#include <algorithm>
#include <cstdio>
#include <map>

#include "common/errors.h"
#include "common/safe_file.h"
#include "common/text_terminal.h"

namespace hpcsens::cli {

CLI::Validator format_in(const std::vector<std::string>& allowed) {
  std::string list;
  for (const auto& f : allowed) list += (list.empty() ? "" : "|") + f;
  return CLI::Validator(
      [allowed, list](std::string& name) -> std::string {
        if (name == "text") name = "table";
        if (std::find(allowed.begin(), allowed.end(), name) != allowed.end()) return "";
        return "'" + name + "' is not a format here (use " + list + "; text is the same as table)";
      },
      list, "FORMAT");
}

void write_output(const std::string& text, const std::string& out, const std::string& subcommand) {
  if (out.empty()) {
    const std::string shown = text::escape_for_terminal(text);
    std::fwrite(shown.data(), 1, shown.size(), stdout);
    return;
  }
  const std::string err = safe_file::write_file_atomic(out, text);
  if (!err.empty()) throw InputError(out, err);
  fmt::print(stderr, "hpcsens: {}: {}\n", subcommand, out);
}

std::string usage_line(const std::string& sub) {
  static const std::map<std::string, std::string> lines = {
      {"run", "hpcsens run [-o DIR] [--events SPEC] [--quiet] [--summary] [--all] [--timeout S] -- LAUNCHER ARGS..."},
      {"report", "hpcsens report INPUT [--format table|md|csv|json|html] [--table NAME] [-o FILE] [--all] [--summary]"},
      {"fit", "hpcsens fit INPUTS... [--model M] [--per-rank] [--region NAME|all] [-o FILE] "
              "[--format table|json|csv|md] [--table points|terms|ranks]"},
      {"predict", "hpcsens predict MODEL.json (--system FILE.yaml... | --cpu-ghz X --mem-gbs Y ...) "
                  "[--format table|md|csv|json|html] [-o FILE]; hpcsens predict --mix MIX.yaml --system FILE.yaml... "
                  "[--rank-by C] [--format table|md|csv|json|html] [-o FILE]"},
      {"sweep", "hpcsens sweep SPEC.yaml [-o DIR] [--dry-run] [--no-fit]; hpcsens sweep --resume DIR; "
                "hpcsens sweep --restore DIR"},
      {"doctor", "hpcsens doctor [--format table|json] [-o FILE]"},
      {"resctrl-join", "hpcsens resctrl-join --dir DIR --token T --group G --run RUN -- DAEMON ARGS... (Open MPI's "
                       "launch agent in a multi-node resctrl sweep; the sweep names it)"}};
  const auto at = lines.find(sub);
  return at == lines.end() ? std::string() : at->second;
}

namespace {

// CLI11 lists extras as "The following argument was not expected: a b": the first one that looks
// like an option is the one to name.
std::string unknown_option(const std::string& what) {
  const auto colon = what.find(": ");
  if (colon == std::string::npos) return "";
  std::string rest = what.substr(colon + 2);
  std::size_t start = 0;
  while (start < rest.size()) {
    const auto end = std::min(rest.find(' ', start), rest.size());
    const std::string word = rest.substr(start, end - start);
    if (word.size() > 1 && word[0] == '-' && word != "--") return word;
    start = end + 1;
  }
  return "";
}

}  // namespace

std::string parse_error_message(const CLI::App& app, const CLI::ParseError& e) {
  std::string sub;
  for (const auto* s : app.get_subcommands()) sub = s->get_name();
  const std::string usage = usage_line(sub);
  const std::string what = e.what();
  const std::string who = sub.empty() ? std::string("hpcsens") : "hpcsens " + sub;
  std::string msg = what;
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
    const std::string option = unknown_option(what);
    msg = option.empty() ? "unexpected arguments (" + what.substr(what.find(": ") == std::string::npos ? 0 : what.find(": ") + 2) + ")"
                         : "unknown option " + option;
  }
  if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr && sub.empty())
    msg = "give a subcommand: run, report, sweep, fit, predict or doctor";
  return who + ": " + msg + (usage.empty() ? " (see hpcsens --help)" : " (usage: " + usage + "; " + who + " --help)");
}

}  // namespace hpcsens::cli
