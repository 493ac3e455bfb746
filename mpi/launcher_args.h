#pragma once
// Where a launcher's own options end: at the program name, as the launcher itself parses its
// command line. A word after the program is the program's argument, even when it looks like one
// of the launcher's options (`mpirun -np 2 ./prog --app input.txt`: --app is the program's), so
// hpcsens rewrites only the launcher's words. Pure.
//
// Each launcher's options that take values are listed (Open MPI 4.1/5 mpirun(1), MPICH Hydra
// mpiexec -help, Slurm srun(1)); an option not listed is taken as a flag, so an unknown option with
// a separate value makes the program appear earlier, never later: we then change fewer words, never
// a program's.
#include <cstddef>
#include <string>
#include <vector>

#include "mpi/launcher.h"

namespace hpcsens::mpi {

// Index in argv of the first app context's program (argv[0] is the launcher), or argv.size() when
// there is none.
std::size_t program_index(LauncherKind kind, const std::vector<std::string>& argv);

// How many words after `word` belong to it as values when it is an option of this launcher (0
// for a flag, a "--name=value" word, or something that is not an option).
int option_values(LauncherKind kind, const std::string& word);

}  // namespace hpcsens::mpi
