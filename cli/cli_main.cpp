// hpcsens: one binary, one subcommand per job. Each subcommand lives in its own cmd_*.cpp.
// The whole command line lives here (not in main.cpp) so that a test binary can run the very
// same CLI with a test double installed first (tests/sweep/kernel_model_main.cpp).
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <cstdio>
#include <exception>

#include "cli/advice.h"
#include "cli/commands.h"
#include "cli/usage.h"
#include "common/errors.h"
#include "common/text_escape.h"
#include "common/text_terminal.h"

int hpcsens::cli::run_cli(int argc, char** argv) {
  CLI::App app{"hpcsens: MPI performance sensitivity — wrap jobs, sweep frequencies, fit models"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "hpcsens 0.1.0");
  hpcsens::cli::Registry registry;
  hpcsens::cli::add_run(app, registry);
  hpcsens::cli::add_report(app, registry);
  hpcsens::cli::add_doctor(app, registry);
  hpcsens::cli::add_fit(app, registry);
  hpcsens::cli::add_predict(app, registry);
  hpcsens::cli::add_sweep(app, registry);
  hpcsens::cli::add_resctrl_join(app, registry);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version are "errors" with exit code 0 that CLI11 prints itself.
    if (e.get_exit_code() == 0) return app.exit(e);
    // Everything else is bad usage: one line, in the same form as every other error.
    fmt::print(stderr, "hpcsens: error: {}\n",
               hpcsens::text::escape_for_message(hpcsens::cli::parse_error_message(app, e)));
    return hpcsens::kExitBadInput;
  }
  try {
    return registry.run_selected();
  } catch (const hpcsens::InputError& e) {
    std::string sub;
    for (const auto* s : app.get_subcommands()) sub = s->get_name();
    // Input errors quote the input (spec values, file contents): no escape sequence reaches the terminal.
    fmt::print(stderr, "hpcsens: error: {}{}\n", hpcsens::text::escape_for_terminal(e.what()),
               hpcsens::cli::advice_for(sub, e.what()));
    return hpcsens::kExitBadInput;
  } catch (const std::exception& e) {
    fmt::print(stderr, "hpcsens: internal error: {}\n", hpcsens::text::escape_for_message(e.what()));
    return 1;
  }
}
