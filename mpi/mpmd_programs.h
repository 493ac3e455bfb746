#pragma once
// The program of every app context of an MPMD job (`a : b` on the command line, or the lines of
// an Open MPI appfile) and which MPI each was built against, so that a line mixing an Open MPI
// program with an MPICH one is said instead of getting the first program's preload everywhere.
#include <optional>
#include <string>
#include <vector>

#include "mpi/rank_mpi.h"

namespace hpcsens::mpi {

// The words of each app context: argv after the launcher word split at lone ":" words.
std::vector<std::vector<std::string>> app_contexts(const std::vector<std::string>& argv);

// The first word of a context that names an executable regular file (found on `path_env` like
// execvp would); option values such as "-np 1" are not. Empty when none.
std::string context_program(const std::vector<std::string>& words, const std::string& path_env);

// The MPI a program's ELF links directly: Open MPI (libmpi.so.40...), MPICH (libmpich, the
// MPICH ABI's libmpi.so.12), or nothing (a script, a static program, no MPI named).
std::optional<RankMpi> linked_mpi(const std::string& program);

struct ProgramMpi {
  std::string program;
  RankMpi mpi;
};

// "" when the programs agree (or link no MPI that can be told); else one line naming one
// program of each MPI, e.g. "the app contexts mix programs built against different MPIs
// (./a: Open MPI, ./b: MPICH)".
std::string mixed_mpi_problem(const std::vector<ProgramMpi>& programs);

// The known MPIs of the programs of `contexts` (word lists), in order.
std::vector<ProgramMpi> programs_mpi(const std::vector<std::vector<std::string>>& contexts);

}  // namespace hpcsens::mpi
