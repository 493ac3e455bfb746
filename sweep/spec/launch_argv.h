#pragma once
// Pure rewrites of a job's command line: Slurm's --cpu-freq, how a declared memory
// configuration is reached, the calibrator's launch line, and the commands of knob tools that
// are driven by command (likwid-setFrequencies, per-node knob application through srun).
#include <string>
#include <vector>

#include "sweep/spec/spec.h"

namespace hpcsens::sweep {

using Argv = std::vector<std::string>;

bool is_srun(const Argv& argv);
bool is_openmpi_style_mpirun(const Argv& argv);  // mpirun, mpiexec, orterun

// Inserts `option` (e.g. "--cpu-freq=2400000") right after the srun word, replacing an option
// that starts with the same "--name=" the user already gave.
Argv with_srun_option(const Argv& argv, const std::string& option);

// srun --cpu-freq takes kHz; a single value makes Slurm set the userspace governor at that
// frequency for the job's CPUs and restore the previous setting when the step ends.
Argv with_slurm_cpu_freq(const Argv& argv, double ghz);

// srun: --partition / --constraint / --nodelist; mpirun: --host. Manual configurations and
// empty declarations leave argv unchanged. Throws std::runtime_error when the launcher cannot
// express the configuration.
Argv with_memory_config(const Argv& argv, const MemoryConfig& m);

// Index of the application in LAUNCHER ARGS... (first word that is neither an option nor an
// option's value); argv.size() when there is none.
std::size_t application_index(const Argv& argv);

// The launcher part of the job's command (everything before the application), with the rank
// count replaced when `ranks` > 0; empty for a bare program (argv[0] is no MPI launcher or srun).
// Throws std::runtime_error when ranks cannot be replaced.
Argv launcher_prefix(const Argv& argv, int ranks);

// likwid-setFrequencies command lines (GHz values, as likwid takes them).
Argv likwid_cpu_command(double ghz);
Argv likwid_uncore_command(const UncoreSetting& s);
// likwid cannot report the previous settings to us, so restoring means its own reset.
std::vector<Argv> likwid_reset_commands(bool cpu, bool uncore);

// One task per node of the current allocation applies (or restores) a point's knobs there:
// Set (to 1) in the environment of each node's task of the two commands below.
inline constexpr const char* kNodeTaskEnv = "HPCSENS_SWEEP_NODE_TASK";

// srun --nodes=<nnodes> --ntasks=<nnodes> --ntasks-per-node=1 ... <hpcsens> sweep <spec> --apply-point N --dir D.
Argv per_node_apply_command(int nnodes, const std::string& hpcsens, const std::string& spec,
                            int point, const std::string& dir);
Argv per_node_restore_command(int nnodes, const std::string& hpcsens, const std::string& dir);

// Open MPI's major version from what `mpirun --version` printed ("mpirun (Open MPI) 4.1.4");
// 0 when the text is not Open MPI's.
int openmpi_major_version(const std::string& version_text);

// The job's Open MPI launcher with a launch agent: the command Open MPI runs, on every node
// but the launcher's, in place of its daemon (orted in 4.x: --mca orte_launch_agent; prted in
// 5.x: --prtemca prte_launch_agent), the daemon's own name and arguments appended after
// `agent`. Inserted right after the launcher word. Open MPI splits the value at blanks, so a
// word with a blank is refused, and so is a launch agent the user set already (throws
// runtime_error saying which).
Argv with_openmpi_launch_agent(const Argv& argv, const std::vector<std::string>& agent, int openmpi_major);

std::string shell_join(const Argv& argv);

}  // namespace hpcsens::sweep
