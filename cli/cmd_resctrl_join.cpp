// `hpcsens resctrl-join`: the launch agent of a multi-node resctrl sweep (sweep/execute/
// resctrl_join.h). Open MPI runs it on each other node in place of its daemon; it joins the
// node's group and becomes the daemon. It runs only the command the launcher gave it, and runs
// nothing when the group is not this sweep's: a daemon outside the group would run the ranks
// unthrottled under a record that says throttled.
#include <fmt/core.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "cli/commands.h"
#include "common/errors.h"
#include "sweep/execute/resctrl_join.h"

namespace hpcsens::cli {

void add_resctrl_join(CLI::App& app, Registry& reg) {
  auto* sub = app.add_subcommand("resctrl-join",
                                 "Multi-node resctrl sweep helper: join this node's group, then exec the launcher's "
                                 "daemon (the sweep names it as Open MPI's launch agent)");
  struct Opts {
    sweep::JoinRequest r;
    std::vector<std::string> command;
  };
  auto o = std::make_shared<Opts>();
  sub->add_option("--dir", o->r.dir, "The sweep's output directory")->required();
  sub->add_option("--token", o->r.token, "The sweep's token")->required();
  sub->add_option("--group", o->r.group, "The sweep's resctrl group (hpcsens-TOKEN)")->required();
  sub->add_option("--run", o->r.run, "The run the join is noted for")->required();
  sub->add_option("command", o->command, "The daemon and its arguments, after --")->required();
  reg.add(sub, [o] {
    if (auto why = sweep::join_node_group(o->r); !why.empty()) {
      fmt::print(stderr, "hpcsens resctrl-join: refused on {}: {}; the launcher's daemon is not started, so no rank "
                         "runs outside the point's group\n", sweep::this_host_name(), why);
      return kExitBadInput;
    }
    std::vector<char*> argv;
    for (auto& a : o->command) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execvp(argv[0], argv.data());
    fmt::print(stderr, "hpcsens resctrl-join: cannot run {}: {}\n", o->command[0], std::strerror(errno));
    return 127;
  });
}

}  // namespace hpcsens::cli
