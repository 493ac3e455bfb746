#include "cli/commands.h"

#include <fmt/core.h>

namespace hpcsens::cli {

void add_sweep(CLI::App& app, Registry& reg) {
  auto* sub = app.add_subcommand("sweep", "(not built yet)");
  reg.add(sub, [] {
    fmt::print(stderr, "hpcsens sweep: not implemented yet\n");
    return 1;
  });
}

}  // namespace hpcsens::cli
