#pragma once
// Each subcommand registers its options and an action; main runs the one the user chose.
#include <CLI/CLI.hpp>

#include <functional>
#include <vector>

namespace hpcsens::cli {

class Registry {
 public:
  void add(CLI::App* sub, std::function<int()> action) { entries_.push_back({sub, std::move(action)}); }
  int run_selected() const {
    for (const auto& e : entries_)
      if (e.sub->parsed()) return e.action();
    return 2;
  }

 private:
  struct Entry {
    CLI::App* sub;
    std::function<int()> action;
  };
  std::vector<Entry> entries_;
};

// The hpcsens command line (main.cpp calls it): parses argv, runs the subcommand, returns the
// exit status.
int run_cli(int argc, char** argv);

void add_run(CLI::App& app, Registry& reg);      // cmd_run.cpp
void add_report(CLI::App& app, Registry& reg);   // cmd_report.cpp
void add_doctor(CLI::App& app, Registry& reg);   // cmd_doctor.cpp
void add_fit(CLI::App& app, Registry& reg);      // cmd_fit.cpp
void add_predict(CLI::App& app, Registry& reg);  // cmd_predict.cpp
void add_sweep(CLI::App& app, Registry& reg);    // cmd_sweep.cpp
void add_resctrl_join(CLI::App& app, Registry& reg);  // cmd_resctrl_join.cpp

}  // namespace hpcsens::cli
