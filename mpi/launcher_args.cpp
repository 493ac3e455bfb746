#include "mpi/launcher_args.h"

#include <algorithm>
#include <string_view>

namespace hpcsens::mpi {
namespace {

struct Valued {
  std::string_view name;  // without leading dashes
  int values;
};

// mpirun(1) of Open MPI 4.1 and 5 (prterun): both -name and --name spellings are accepted.
constexpr Valued kOpenMpiValued[] = {
    {"np", 1}, {"n", 1}, {"c", 1}, {"H", 1}, {"host", 1}, {"hostfile", 1}, {"machinefile", 1},
    {"default-hostfile", 1}, {"add-host", 1}, {"add-hostfile", 1}, {"x", 1}, {"map-by", 1}, {"rank-by", 1},
    {"bind-to", 1}, {"app", 1}, {"wdir", 1}, {"wd", 1}, {"path", 1}, {"prefix", 1}, {"preload-files", 1},
    {"npernode", 1}, {"N", 1}, {"npersocket", 1}, {"output-filename", 1}, {"timeout", 1}, {"cpus-per-proc", 1},
    {"cpus-per-rank", 1}, {"cpu-set", 1}, {"cpu-list", 1}, {"rankfile", 1}, {"rf", 1}, {"stdin", 1},
    {"personality", 1}, {"tune", 1}, {"am", 1}, {"launch-agent", 1}, {"max-restarts", 1}, {"report-uri", 1},
    {"report-pid", 1}, {"ompi-server", 1}, {"ppr", 1}, {"dvm-uri", 1}, {"output", 1}, {"display", 1},
    {"runtime-options", 1}, {"pset", 1}, {"hnp", 1}, {"slot-list", 1}, {"forward-signals", 1},
    {"stream-buffering", 1}, {"xterm", 1}, {"memory-alloc-kinds", 1}, {"sf", 1}, {"preload-binary-dest", 1},
    {"mca", 2}, {"gmca", 2}, {"pmixmca", 2}, {"prtemca", 2}, {"omca", 2},
};

// mpiexec -help of MPICH 4 Hydra (single-dash options; global -g... and local forms).
constexpr Valued kHydraValued[] = {
    {"n", 1}, {"np", 1}, {"f", 1}, {"hostfile", 1}, {"machinefile", 1}, {"hosts", 1}, {"host", 1},
    {"genv", 2}, {"env", 2}, {"genvlist", 1}, {"envlist", 1}, {"gwdir", 1}, {"wdir", 1}, {"configfile", 1},
    {"ppn", 1}, {"bind-to", 1}, {"binding", 1}, {"map-by", 1}, {"launcher", 1}, {"bootstrap", 1},
    {"launcher-exec", 1}, {"bootstrap-exec", 1}, {"iface", 1}, {"rmk", 1}, {"demux", 1},
    {"prepend-pattern", 1}, {"outfile-pattern", 1}, {"errfile-pattern", 1}, {"gpus-per-proc", 1},
    {"membind", 1}, {"topolib", 1}, {"ckpointlib", 1}, {"ckpoint-prefix", 1}, {"ckpoint-num", 1},
    {"ckpoint-interval", 1}, {"pmi-port", 1}, {"nameserver", 1}, {"localhost", 1}, {"usize", 1},
    {"gdir", 1}, {"dir", 1}, {"arch", 1}, {"garch", 1}, {"path", 1}, {"gpath", 1}, {"umask", 1},
    {"gumask", 1}, {"timeout", 1}, {"tv-path", 1},
};

// srun(1): short options are one letter (-n4 or -n 4); long ones take "=value" or the next word.
constexpr Valued kSrunLongValued[] = {
    {"ntasks", 1}, {"nodes", 1}, {"cpus-per-task", 1}, {"partition", 1}, {"time", 1}, {"nodelist", 1},
    {"exclude", 1}, {"job-name", 1}, {"output", 1}, {"error", 1}, {"input", 1}, {"chdir", 1}, {"account", 1},
    {"constraint", 1}, {"distribution", 1}, {"gres", 1}, {"gpus", 1}, {"mem", 1}, {"mem-per-cpu", 1},
    {"mem-per-gpu", 1}, {"qos", 1}, {"dependency", 1}, {"export", 1}, {"mpi", 1}, {"cpu-bind", 1},
    {"cpu-freq", 1}, {"ntasks-per-node", 1}, {"ntasks-per-core", 1}, {"ntasks-per-socket", 1},
    {"ntasks-per-gpu", 1}, {"reservation", 1}, {"licenses", 1}, {"comment", 1}, {"begin", 1}, {"jobid", 1},
    {"het-group", 1}, {"network", 1}, {"mem-bind", 1}, {"hint", 1}, {"gpus-per-task", 1}, {"gpus-per-node", 1},
    {"gpus-per-socket", 1}, {"cpus-per-gpu", 1}, {"threads-per-core", 1}, {"cores-per-socket", 1},
    {"sockets-per-node", 1}, {"switches", 1}, {"wckey", 1}, {"deadline", 1}, {"time-min", 1}, {"tmp", 1},
    {"uid", 1}, {"gid", 1}, {"signal", 1}, {"slurmd-debug", 1}, {"task-epilog", 1}, {"task-prolog", 1},
    {"epilog", 1}, {"prolog", 1}, {"container", 1}, {"container-id", 1}, {"extra-node-info", 1},
    {"open-mode", 1}, {"wait", 1}, {"mail-type", 1}, {"mail-user", 1}, {"cluster-constraint", 1},
    {"clusters", 1}, {"relative", 1}, {"core-spec", 1}, {"thread-spec", 1}, {"accel-bind", 1},
    {"gpu-bind", 1}, {"gpu-freq", 1}, {"gres-flags", 1}, {"power", 1}, {"profile", 1}, {"mcs-label", 1},
    {"mincpus", 1}, {"nodefile", 1}, {"tres-per-task", 1}, {"tres-bind", 1}, {"bb", 1}, {"bbf", 1},
};
constexpr std::string_view kSrunShortValued = "ncNptwJoeiDACxmGqdTrLSWMF";

int values_of(std::string_view name, const Valued* begin, const Valued* end) {
  const auto it = std::find_if(begin, end, [&](const Valued& v) { return v.name == name; });
  return it == end ? 0 : it->values;
}

int srun_values(std::string_view word) {
  if (word.size() >= 3 && word.substr(0, 2) == "--")
    return word.find('=') != std::string_view::npos ? 0 : values_of(word.substr(2), std::begin(kSrunLongValued), std::end(kSrunLongValued));
  // "-n" takes the next word; "-n4" holds its value.
  return word.size() == 2 && kSrunShortValued.find(word[1]) != std::string_view::npos ? 1 : 0;
}

}  // namespace

int option_values(LauncherKind kind, const std::string& word) {
  if (word.size() < 2 || word[0] != '-' || word == "--") return 0;
  if (kind == LauncherKind::kSlurm) return srun_values(word);
  if (word.find('=') != std::string::npos) return 0;
  const std::string_view name = std::string_view(word).substr(word[1] == '-' ? 2 : 1);
  if (kind == LauncherKind::kOpenMpi) return values_of(name, std::begin(kOpenMpiValued), std::end(kOpenMpiValued));
  if (kind == LauncherKind::kMpichHydra) return values_of(name, std::begin(kHydraValued), std::end(kHydraValued));
  return 0;
}

std::size_t program_index(LauncherKind kind, const std::vector<std::string>& argv) {
  std::size_t i = 1;
  while (i < argv.size()) {
    const std::string& w = argv[i];
    if (w == "--") return i + 1;  // srun: options end here; mpirun and Hydra never see it before a program
    if (w.size() < 2 || w[0] != '-') return i;
    i += 1 + static_cast<std::size_t>(option_values(kind, w));
  }
  return argv.size();
}

}  // namespace hpcsens::mpi
