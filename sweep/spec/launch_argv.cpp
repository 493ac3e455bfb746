#include "sweep/spec/launch_argv.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <set>
#include <stdexcept>

namespace hpcsens::sweep {
namespace {

std::string basename_of(const std::string& p) {
  const auto slash = p.rfind('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

std::string join(const std::vector<std::string>& v, char sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : std::string(1, sep)) + s;
  return out;
}

std::string ghz_text(double ghz) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", ghz);
  return buf;
}

// Options that take the next word as their value (Open MPI, MPICH Hydra, srun short forms).
const std::set<std::string>& options_with_value() {
  static const std::set<std::string> s = {
      "-np", "-n", "-c", "-N", "-H", "--host", "-host", "-hosts", "--hostfile", "-hostfile",
      "-machinefile", "--machinefile", "-f", "--map-by", "-map-by", "--bind-to", "-bind-to",
      "--rank-by", "-x", "--npernode", "-npernode", "-ppn", "--wdir", "-wdir", "--prefix",
      "--ntasks", "--nodes", "--ntasks-per-node", "--cpus-per-task", "-p", "--partition", "-w",
      "--nodelist", "-C", "--constraint", "-t", "--time", "-J", "--job-name", "-A", "--account",
      "-q", "--qos", "-o", "-e", "--mpi", "--cpu-bind", "--distribution", "-m"};
  return s;
}
const std::set<std::string>& options_with_two_values() {
  static const std::set<std::string> s = {"--mca", "-mca", "--gmca", "-gmca", "--prtemca", "-prtemca", "-env", "-genv"};
  return s;
}

}  // namespace

bool is_srun(const Argv& argv) { return !argv.empty() && basename_of(argv[0]) == "srun"; }

bool is_openmpi_style_mpirun(const Argv& argv) {
  if (argv.empty()) return false;
  const auto b = basename_of(argv[0]);
  return b == "mpirun" || b == "mpiexec" || b == "orterun";
}

Argv with_srun_option(const Argv& argv, const std::string& option) {
  if (!is_srun(argv)) throw std::runtime_error("the job is not launched by srun: " + shell_join(argv));
  const auto eq = option.find('=');
  const std::string key = option.substr(0, eq == std::string::npos ? option.size() : eq + 1);
  Argv out{argv[0], option};
  const std::size_t app = application_index(argv);
  for (std::size_t i = 1; i < argv.size(); ++i)
    if (i >= app || argv[i].rfind(key, 0) != 0) out.push_back(argv[i]);
  return out;
}

Argv with_slurm_cpu_freq(const Argv& argv, double ghz) {
  return with_srun_option(argv, "--cpu-freq=" + std::to_string(std::lround(ghz * 1e6)));
}

Argv with_memory_config(const Argv& argv, const MemoryConfig& m) {
  if (!m.slurm_partition.empty()) return with_srun_option(argv, "--partition=" + m.slurm_partition);
  if (!m.slurm_constraint.empty()) return with_srun_option(argv, "--constraint=" + m.slurm_constraint);
  if (!m.nodes.empty()) {
    if (is_srun(argv)) return with_srun_option(argv, "--nodelist=" + join(m.nodes, ','));
    if (is_openmpi_style_mpirun(argv)) {
      Argv out{argv[0], "--host", join(m.nodes, ',')};
      out.insert(out.end(), argv.begin() + 1, argv.end());
      return out;
    }
    throw std::runtime_error("memory configuration '" + m.name + "' lists nodes, but launcher '" +
                             argv[0] + "' takes no host list we know");
  }
  return argv;
}

std::size_t application_index(const Argv& argv) {
  std::size_t i = 1;
  while (i < argv.size()) {
    const auto& a = argv[i];
    if (a.empty() || a[0] != '-') return i;
    if (a == "--") return i + 1;
    if (a.find('=') != std::string::npos) ++i;
    else if (options_with_two_values().count(a)) i += 3;
    else if (options_with_value().count(a)) i += 2;
    else ++i;
  }
  return argv.size();
}

// A word that starts ranks (its options come before the program), as opposed to the program
// itself run as a singleton.
static bool is_launcher(const std::string& argv0) {
  const auto b = basename_of(argv0);
  return b.rfind("mpirun", 0) == 0 || b.rfind("mpiexec", 0) == 0 || b == "srun" || b == "orterun" ||
         b == "prterun" || b == "aprun" || b == "jsrun" || b == "ibrun";
}

Argv launcher_prefix(const Argv& argv, int ranks) {
  // A bare program (a singleton, or a shell script that starts ranks itself): the calibrator runs
  // on its own, the way the program does. Taking the program for a launcher would run
  // "sleep hpcsens-stream ..." or "sh hpcsens-stream ...".
  if (argv.empty() || !is_launcher(argv[0])) return {};
  const std::size_t app = application_index(argv);
  Argv out(argv.begin(), argv.begin() + std::min(app, argv.size()));
  if (!out.empty() && out.back() == "--") out.pop_back();
  if (ranks <= 0) return out;
  for (std::size_t i = 1; i < out.size(); ++i) {
    const auto& a = out[i];
    if ((a == "-np" || a == "-n" || a == "--ntasks" || a == "--np") && i + 1 < out.size()) {
      out[i + 1] = std::to_string(ranks);
      return out;
    }
    for (const char* k : {"--ntasks=", "--np=", "-np="})
      if (a.rfind(k, 0) == 0) {
        out[i] = std::string(k) + std::to_string(ranks);
        return out;
      }
  }
  throw std::runtime_error("cannot find the rank count (-np/-n/--ntasks) in '" + shell_join(argv) +
                           "' to set calibration.ranks; give calibration.launcher instead");
}

Argv likwid_cpu_command(double ghz) { return {"likwid-setFrequencies", "-c", "N", "-f", ghz_text(ghz)}; }

Argv likwid_uncore_command(const UncoreSetting& s) {
  return {"likwid-setFrequencies", "--umin", ghz_text(s.min_ghz), "--umax", ghz_text(s.max_ghz)};
}

std::vector<Argv> likwid_reset_commands(bool cpu, bool uncore) {
  std::vector<Argv> out;
  if (cpu) out.push_back({"likwid-setFrequencies", "--reset"});
  if (uncore) out.push_back({"likwid-setFrequencies", "--ureset"});
  return out;
}

// --ntasks: an allocation's SLURM_NTASKS (salloc -n 4) would otherwise override one task per
// node. The marker tells the node task it is one node's part (see restore_from_journal).
static const std::string kNodeTaskExport = std::string("--export=ALL,") + kNodeTaskEnv + "=1";

Argv per_node_apply_command(int nnodes, const std::string& hpcsens, const std::string& spec,
                            int point, const std::string& dir) {
  return {"srun", "--nodes=" + std::to_string(nnodes), "--ntasks=" + std::to_string(nnodes), "--ntasks-per-node=1",
          "--overlap", kNodeTaskExport, hpcsens, "sweep", spec, "--apply-point", std::to_string(point), "--dir", dir};
}

Argv per_node_restore_command(int nnodes, const std::string& hpcsens, const std::string& dir) {
  return {"srun", "--nodes=" + std::to_string(nnodes), "--ntasks=" + std::to_string(nnodes), "--ntasks-per-node=1",
          "--overlap", kNodeTaskExport, hpcsens, "sweep", "--restore", dir};
}

int openmpi_major_version(const std::string& version_text) {
  for (const char* mark : {"(Open MPI) ", "(OpenRTE) "}) {
    const auto at = version_text.find(mark);
    if (at == std::string::npos) continue;
    const char* p = version_text.c_str() + at + std::strlen(mark);
    if (std::isdigit(static_cast<unsigned char>(*p))) return std::atoi(p);
  }
  return 0;
}

Argv with_openmpi_launch_agent(const Argv& argv, const std::vector<std::string>& agent, int openmpi_major) {
  if (argv.empty()) throw std::runtime_error("no launcher to give a launch agent");
  const bool prte = openmpi_major >= 5;
  for (const auto& a : argv)
    if (a.find("orte_launch_agent") != std::string::npos || a.find("prte_launch_agent") != std::string::npos ||
        a == "--launch-agent" || a == "-launch-agent")
      throw std::runtime_error("the job's command already sets Open MPI's launch agent ('" + a +
                               "'); hpcsens needs it to put each node's daemon into the point's resctrl group");
  std::string value;
  for (const auto& w : agent) {
    if (w.empty() || w.find_first_of(" \t\n") != std::string::npos)
      throw std::runtime_error("'" + w + "' has a blank, and Open MPI splits its launch agent at blanks: use a "
                               "path without blanks for hpcsens and the sweep's output directory");
    value += w + " ";
  }
  value += prte ? "prted" : "orted";
  Argv out{argv[0], prte ? "--prtemca" : "--mca", prte ? "prte_launch_agent" : "orte_launch_agent", value};
  out.insert(out.end(), argv.begin() + 1, argv.end());
  return out;
}

std::string shell_join(const Argv& argv) {
  std::string out;
  for (const auto& a : argv) {
    const bool plain = !a.empty() && a.find_first_of(" \t\n'\"\\;&|<>()*?!#~") == std::string::npos;
    if (!out.empty()) out += ' ';
    if (plain) {
      out += a;
    } else {
      out += '\'';
      for (char c : a) out += (c == '\'') ? std::string("'\\''") : std::string(1, c);
      out += '\'';
    }
  }
  return out;
}

}  // namespace hpcsens::sweep
