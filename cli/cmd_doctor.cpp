#include "cli/commands.h"

#include <fmt/core.h>

namespace hpcsens::cli {

void add_doctor(CLI::App& app, Registry& reg) {
  auto* sub = app.add_subcommand("doctor", "(not built yet)");
  reg.add(sub, [] {
    fmt::print(stderr, "hpcsens doctor: not implemented yet\n");
    return 1;
  });
}

}  // namespace hpcsens::cli
