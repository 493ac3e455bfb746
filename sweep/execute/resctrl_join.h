#pragma once
// Ranks on other nodes join their node's resctrl group through a launch agent. Open MPI starts
// its daemon on each other node by ssh or srun, outside any process of ours, so its ranks would
// run unthrottled. The sweep names `hpcsens resctrl-join ... -- orted` as the launch agent: on
// each node it checks the group is this sweep's, writes its own pid into the group's tasks,
// notes the join in the sweep directory, and execs the daemon, so the daemon and every rank it
// forks are in the group. After each run the sweep checks that every host of the record either
// ran its ranks under the launcher here (in this node's group) or noted a join.
#include <sys/types.h>

#include <string>
#include <vector>

#include "sweep/knobs/knobs.h"
#include "sweep/journal/session.h"

namespace hpcsens::sweep {

struct JoinRequest {
  std::string dir;    // the sweep's output directory (absolute, shared by the nodes)
  std::string token;  // the sweep's token: the group must carry it
  std::string group;  // the sweep's group, hpcsens-<token>
  std::string run;    // the run (or calibration) the join is noted for
};

// The agent's words for Open MPI's launch agent: <hpcsens> resctrl-join --dir D --token T
// --group G --run K --. Throws runtime_error when a value cannot travel there (see
// with_openmpi_launch_agent).
std::vector<std::string> join_agent_words(const std::string& hpcsens, const JoinRequest& r);

// The agent's part, on its node: the node's journal (D/nodes/<host>/) must belong to sweep T
// and name G as live, G must be this sweep's pattern, a directory of the user's own under the
// journalled root, its tasks file no symlink; then our pid goes into G's tasks and the join is
// noted in D/resctrl-joins/K/<host>.<pid>. "" when joined, else why not (nothing was written).
std::string join_node_group(const JoinRequest& r);

// Why the join note `name` in the notes' directory `dir_fd` is not one of ours ("" when it is;
// then *host is the note's host): opened without blocking or following a link, it must be a
// regular file of `euid` with one link, not writable by others, naming the host and pid of its
// name. A note another user planted in a shared sweep directory counts for no host.
std::string join_note_problem(int dir_fd, const std::string& name, uid_t euid, std::string* host);

// The hosts among `hosts` whose ranks ran outside the point's group for run `run`: neither
// `this_host` with the launcher in its group (`launcher_joined`) nor a host whose agent noted
// a join in D/resctrl-joins/<run>/.
std::vector<std::string> hosts_outside_group(const std::string& dir, const std::string& run,
                                             const std::vector<std::string>& hosts, const std::string& this_host,
                                             bool launcher_joined);

std::string this_host_name();

// The controller's side for one sweep. On several nodes with resctrl groups, every launch
// (the calibrator's and the job's) gets the agent; on any number of nodes, every run's hosts
// are checked.
class GroupJoins {
 public:
  // Asks the job's Open MPI launcher its version (the option differs in 4.x and 5.x) when the
  // agent is needed.
  GroupJoins(const SweepSpec& spec, const KnobSet& knobs, const std::string& hpcsens, const Session& session);
  // `argv` with the agent for run `key` at point `p` (unchanged when no agent is needed).
  Argv launch(const Argv& argv, const Point& p, const std::string& key) const;
  // The record's hosts, each checked to have run its ranks inside the point's group (empty when
  // the point has no group). Throws InputError (the job's launcher set-up, not the job, is at
  // fault: the sweep stops, restores and exits 2) naming the hosts of the record at
  // `record_path` whose ranks ran outside it: their memory rate is not the point's.
  std::vector<std::string> check(const std::string& record_path, const Point& p, const std::string& key) const;

 private:
  const KnobSet& knobs_;
  const Session& session_;
  std::string hpcsens_, where_;
  int openmpi_major_ = 0;  // 0: no agent
};

}  // namespace hpcsens::sweep
