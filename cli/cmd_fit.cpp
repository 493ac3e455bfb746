#include "cli/commands.h"

#include <fmt/core.h>

namespace hpcsens::cli {

void add_fit(CLI::App& app, Registry& reg) {
  auto* sub = app.add_subcommand("fit", "(not built yet)");
  reg.add(sub, [] {
    fmt::print(stderr, "hpcsens fit: not implemented yet\n");
    return 1;
  });
}

}  // namespace hpcsens::cli
