#pragma once
// One job through the run module, in a child process of the sweep. The run module installs its
// own SIGINT/SIGTERM/SIGHUP handlers (to forward them to the job), which would swallow the
// sweep's stop request; in a child they cannot. The child gets SIGTERM when the sweep dies
// (PR_SET_PDEATHSIG), which the run module forwards to the job: no job outlives a kill -9.
#include <functional>
#include <vector>

#include "run/run_job.h"

namespace hpcsens::sweep {

using JobRunner = std::function<run::RunResult(const run::RunRequest&)>;
// Told the child's pid right after the fork (the sweep journals it: the child is not exec'd, so
// /proc/<pid>/environ does not show the sweep token). Must not throw.
using ChildStarted = std::function<void(int pid)>;

// The child closes the sweep's lock descriptors (a job that outlives a kill -9 must not hold
// them; --resume finds it by the sweep token in its environment, and the child by its journalled
// pid and start time).
run::RunResult run_isolated(const JobRunner& runner, const run::RunRequest& req, const ChildStarted& started = {});

}  // namespace hpcsens::sweep
