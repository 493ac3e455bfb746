#pragma once
// Launcher adapters: recognise how the user starts the job and rewrite the command so that
// our environment (the preload and its settings) reaches the MPI ranks only. The rewriting is
// pure so every launcher's quirks are unit-tested without running anything.
#include <string>
#include <string_view>
#include <vector>

namespace hpcsens::mpi {

enum class LauncherKind {
  kOpenMpi,     // mpirun / mpiexec / orterun of Open MPI: `-x VAR=value`
  kMpichHydra,  // MPICH (and Intel MPI) Hydra mpiexec: `-genv VAR value`
  kSlurm,       // srun: `--export=ALL,VAR=value`
  kSingleton,   // a bare executable: it is the rank itself (singleton MPI_Init)
  kUnknown,     // mpirun/mpiexec of an MPI we cannot identify: we cannot inject safely
};

// Stable name used in the record's job.launcher ("openmpi", "mpich-hydra", "slurm", "singleton",
// "unknown").
std::string_view launcher_name(LauncherKind kind);

// True when the basename alone is ambiguous (mpirun, mpiexec) and `<launcher> --version`
// must be asked.
bool needs_version_probe(std::string_view argv0);

// Classifies argv[0] by its basename and, for mpirun/mpiexec, by the text its `--version`
// printed (Open MPI says "Open MPI"/"OpenRTE", Hydra says "HYDRA", Intel MPI names itself).
LauncherKind classify_launcher(std::string_view argv0, std::string_view version_output);

struct EnvVar {
  std::string name;
  std::string value;
};

struct LaunchPlan {
  std::vector<std::string> argv;      // the command to exec
  std::vector<EnvVar> launcher_env;   // set in the environment of the launched process only
  std::vector<std::string> warnings;  // things the user should know (printed on stderr)
};

// Rewrites `argv` (LAUNCHER ARGS...) so that `vars` reach the ranks. Our options go right after
// the launcher word; every user argument stays as it was (except an existing srun --export,
// which must be extended because srun honours only one). LD_PRELOAD is never put into the
// launcher's own environment unless the launched program is itself the rank (singleton).
LaunchPlan plan_launch(LauncherKind kind, const std::vector<std::string>& argv,
                       const std::vector<EnvVar>& vars);

// Runs `<launcher> --version` (bounded to a few seconds) and returns what it printed on stdout
// and stderr; empty when it could not be run. The only part of this module that runs anything.
std::string probe_launcher_version(const std::string& launcher);

// The kind named by what `argv0` (looked up in $PATH) resolves to through its symbolic links,
// when that name alone decides (orterun, mpirun.openmpi, mpiexec.hydra, ...): Open MPI or Hydra;
// kUnknown otherwise (not found, not a link to such a name, or srun/a plain program). Runs nothing.
LauncherKind kind_by_link_target(const std::string& argv0);

// needs_version_probe ? classify(argv0, probe(argv0)) : classify(argv0, ""), except that an
// ambiguous name whose link target decides (kind_by_link_target) is not probed.
LauncherKind detect_launcher(const std::string& argv0);

}  // namespace hpcsens::mpi
