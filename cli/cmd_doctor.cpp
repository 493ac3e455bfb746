#include "cli/commands.h"
#include "cli/usage.h"

#include <string>

#include "common/errors.h"
#include "topdown/doctor.h"

namespace hpcsens::cli {

void add_doctor(CLI::App& app, Registry& reg) {
  auto* sub = app.add_subcommand(
      "doctor", "Check what this machine lets hpcsens measure and control, with fixes");
  static std::string format = "table", out;
  sub->add_option("--format", format, "table (or text) or json")->transform(format_in({"table", "json"}));
  sub->add_option("-o,--output", out, "write to this file instead of standard output");
  reg.add(sub, [] {
    // Exit 0 whenever hpcsens itself works: missing PMU, cpufreq or Slurm are findings, not errors.
    const auto report = doctor::run_all("/proc/self/exe");
    write_output(format == "json" ? doctor::to_json(report) : doctor::to_text(report), out, "doctor");
    return report.broken() ? 1 : 0;
  });
}

}  // namespace hpcsens::cli
