#include "cli/commands.h"

#include <fmt/core.h>

namespace hpcsens::cli {

void add_predict(CLI::App& app, Registry& reg) {
  auto* sub = app.add_subcommand("predict", "(not built yet)");
  reg.add(sub, [] {
    fmt::print(stderr, "hpcsens predict: not implemented yet\n");
    return 1;
  });
}

}  // namespace hpcsens::cli
