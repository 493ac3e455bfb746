#include "cli/commands.h"

#include <fmt/core.h>

namespace hpcsens::cli {

void add_report(CLI::App& app, Registry& reg) {
  auto* sub = app.add_subcommand("report", "(not built yet)");
  reg.add(sub, [] {
    fmt::print(stderr, "hpcsens report: not implemented yet\n");
    return 1;
  });
}

}  // namespace hpcsens::cli
