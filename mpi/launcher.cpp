#include "mpi/launcher.h"

#include <climits>
#include <cstdlib>

#include "mpi/capture.h"
#include "mpi/launcher_args.h"
#include "mpi/rank_mpi.h"

namespace hpcsens::mpi {
namespace {

std::string_view basename_of(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool contains(std::string_view hay, std::string_view needle) {
  return hay.find(needle) != std::string_view::npos;
}

// srun splits --export on commas and has no escape, so a value with a comma cannot go there.
bool srun_safe(const EnvVar& v) { return v.value.find(',') == std::string::npos; }

void plan_slurm(const std::vector<std::string>& argv, const std::vector<EnvVar>& vars,
                LaunchPlan& plan) {
  std::string listed;
  for (const auto& v : vars) {
    if (srun_safe(v)) listed += "," + v.name + "=" + v.value;
  }
  // The user's own --export (srun honours only the last one) is extended, not overridden.
  std::size_t user_export = 0;  // index of the argument holding the user's value; 0: none
  bool separate_value = false;
  // srun's options end at the program: a program's own --export=... is its argument.
  const std::size_t end = program_index(LauncherKind::kSlurm, argv);
  for (std::size_t i = 1; i < end; ++i) {
    if (argv[i] == "--") break;
    if (argv[i].rfind("--export=", 0) == 0) {
      user_export = i;
      separate_value = false;
    } else if (argv[i] == "--export" && i + 1 < argv.size()) {
      user_export = i + 1;
      separate_value = true;
    }
  }
  bool exports_all = true;
  plan.argv = argv;
  if (user_export == 0) {
    plan.argv.insert(plan.argv.begin() + 1, "--export=ALL" + listed);
  } else {
    std::string& arg = plan.argv[user_export];
    const std::string value = separate_value ? arg : arg.substr(std::string("--export=").size());
    std::string merged;
    if (value == "NONE" || value == "NIL" || value.empty()) {
      merged = listed.empty() ? value : listed.substr(1);
      exports_all = false;
    } else {
      merged = value + listed;
      exports_all = value == "ALL" || value.rfind("ALL,", 0) == 0;
    }
    arg = separate_value ? merged : "--export=" + merged;
  }
  for (const auto& v : vars) {
    if (srun_safe(v)) continue;
    if (v.name == "LD_PRELOAD" || !exports_all) {
      plan.warnings.push_back("srun cannot pass " + v.name +
                              " (its value contains a comma and --export does not include ALL)");
      continue;
    }
    // With ALL, srun copies its own environment to the tasks; our settings are harmless to srun.
    plan.launcher_env.push_back(v);
  }
}

}  // namespace

std::string_view launcher_name(LauncherKind kind) {
  switch (kind) {
    case LauncherKind::kOpenMpi: return "openmpi";
    case LauncherKind::kMpichHydra: return "mpich-hydra";
    case LauncherKind::kSlurm: return "slurm";
    case LauncherKind::kSingleton: return "singleton";
    case LauncherKind::kUnknown: break;
  }
  return "unknown";
}

bool needs_version_probe(std::string_view argv0) {
  const auto base = basename_of(argv0);
  return base == "mpirun" || base == "mpiexec";
}

LauncherKind classify_launcher(std::string_view argv0, std::string_view version_output) {
  const auto base = basename_of(argv0);
  if (base == "orterun" || base == "mpirun.openmpi" || base == "mpiexec.openmpi")
    return LauncherKind::kOpenMpi;
  if (base == "mpiexec.hydra" || base == "mpirun.mpich" || base == "mpiexec.mpich")
    return LauncherKind::kMpichHydra;
  if (base == "srun") return LauncherKind::kSlurm;
  if (!needs_version_probe(argv0)) return LauncherKind::kSingleton;
  if (contains(version_output, "Open MPI") || contains(version_output, "OpenRTE"))
    return LauncherKind::kOpenMpi;
  if (contains(version_output, "HYDRA") || contains(version_output, "Intel(R) MPI"))
    return LauncherKind::kMpichHydra;
  return LauncherKind::kUnknown;
}

LaunchPlan plan_launch(LauncherKind kind, const std::vector<std::string>& argv,
                       const std::vector<EnvVar>& vars) {
  LaunchPlan plan;
  if (argv.empty()) return plan;
  switch (kind) {
    case LauncherKind::kOpenMpi: {
      // Open MPI's -x belongs to one app context: an MPMD line (`a : b`, a lone ":" separates
      // contexts wherever it appears, as mpirun itself splits them) needs it in every context.
      const auto add_vars = [&] {
        for (const auto& v : vars) {
          plan.argv.push_back("-x");
          plan.argv.push_back(v.name + "=" + v.value);
        }
      };
      plan.argv.push_back(argv[0]);
      add_vars();
      for (std::size_t i = 1; i < argv.size(); ++i) {
        plan.argv.push_back(argv[i]);
        if (argv[i] == ":") add_vars();
      }
      break;
    }
    case LauncherKind::kMpichHydra: {
      // Global options (before the first section) reach every section of an MPMD line.
      plan.argv.push_back(argv[0]);
      for (const auto& v : vars) {
        plan.argv.push_back("-genv");
        plan.argv.push_back(v.name);
        plan.argv.push_back(v.value);
      }
      plan.argv.insert(plan.argv.end(), argv.begin() + 1, argv.end());
      break;
    }
    case LauncherKind::kSlurm:
      plan_slurm(argv, vars, plan);
      break;
    case LauncherKind::kSingleton:
      plan.argv = argv;
      plan.launcher_env = vars;
      break;
    case LauncherKind::kUnknown:
      plan.argv = argv;
      plan.warnings.push_back("cannot tell which MPI '" + argv[0] +
                              "' belongs to (its --version names neither Open MPI nor Hydra); "
                              "running the job without measurement");
      break;
  }
  return plan;
}

std::string probe_launcher_version(const std::string& launcher) {
  // A launcher that hangs on --version must not hang hpcsens: give it a few seconds.
  return capture_output({launcher, "--version"}, 5.0).output;
}

LauncherKind kind_by_link_target(const std::string& argv0) {
  const char* path = std::getenv("PATH");
  const std::string exe = find_executable(argv0, path ? path : "/usr/bin:/bin");
  char resolved[PATH_MAX];
  if (exe.empty() || ::realpath(exe.c_str(), resolved) == nullptr) return LauncherKind::kUnknown;
  if (needs_version_probe(resolved)) return LauncherKind::kUnknown;
  const LauncherKind kind = classify_launcher(resolved, "");
  return kind == LauncherKind::kOpenMpi || kind == LauncherKind::kMpichHydra ? kind : LauncherKind::kUnknown;
}

LauncherKind detect_launcher(const std::string& argv0) {
  if (!needs_version_probe(argv0)) return classify_launcher(argv0, "");
  // Debian's mpirun -> /etc/alternatives/mpirun -> mpirun.openmpi -> orterun names its MPI:
  // no `mpirun --version` process (10-25 ms before the job on a loaded 2-core node, issue 33).
  if (const LauncherKind by_target = kind_by_link_target(argv0); by_target != LauncherKind::kUnknown) return by_target;
  return classify_launcher(argv0, probe_launcher_version(argv0));
}

}  // namespace hpcsens::mpi
