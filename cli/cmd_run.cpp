#include "cli/commands.h"

#include <fmt/core.h>

namespace hpcsens::cli {

void add_run(CLI::App& app, Registry& reg) {
  auto* sub = app.add_subcommand("run", "(not built yet)");
  reg.add(sub, [] {
    fmt::print(stderr, "hpcsens run: not implemented yet\n");
    return 1;
  });
}

}  // namespace hpcsens::cli
