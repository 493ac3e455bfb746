#include "cli/commands.h"
#include "cli/usage.h"

#include <fmt/core.h>

#include <string>

#include "common/errors.h"
#include "topdown/doctor.h"

namespace hpcsens::cli {

void add_doctor(CLI::App& app, Registry& reg) {
  auto* sub = app.add_subcommand(
      "doctor", "Check what this machine lets hpcsens measure and control, with fixes");
  static std::string format = "table";
  sub->add_option("--format", format, "table (or text) or json")->transform(format_in({"table", "json"}));
  reg.add(sub, [] {
    // Exit 0 whenever hpcsens itself works: missing PMU, cpufreq or Slurm are findings, not errors.
    const auto report = doctor::run_all("/proc/self/exe");
    fmt::print("{}", format == "json" ? doctor::to_json(report) : doctor::to_text(report));
    return report.broken() ? 1 : 0;
  });
}

}  // namespace hpcsens::cli
