#pragma once
// Which MPI library the ranks of a job will load, so that `hpcsens run` injects the preload built
// for that MPI's ABI (libhpcsens_preload.so for Open MPI, libhpcsens_preload_mpich.so for MPICH
// and MPICH-ABI libraries such as Intel MPI).
#include <string>
#include <string_view>
#include <vector>

#include "mpi/launcher.h"

namespace hpcsens::mpi {

enum class RankMpi { kOpenMpi, kMpich };

std::string_view rank_mpi_name(RankMpi mpi);  // "Open MPI", "MPICH"
std::string_view preload_file_name(RankMpi mpi);

// From the DT_NEEDED names of an executable: MPICH for libmpich.so.* / libmpi.so.12 (the MPICH
// ABI), Open MPI for everything else (libmpi.so.40, or no MPI library named directly).
RankMpi rank_mpi_from_needed(const std::vector<std::string>& needed);

// Pure decision: Hydra launches MPICH-ABI ranks; a bare executable is judged by its needed
// libraries; Open MPI's mpirun, srun and unknown launchers keep the Open MPI default.
RankMpi rank_mpi_for(LauncherKind kind, const std::vector<std::string>& executable_needed);

// `name` as execvp would find it: itself if it contains '/', else the first executable match in
// `path_env` (a PATH value). Empty if none.
std::string find_executable(const std::string& name, std::string_view path_env);

// True if `needed` names Open MPI's libmpi (libmpi.so.40 etc., not the MPICH ABI's .so.12).
bool links_open_mpi(const std::vector<std::string>& needed);

// rank_mpi_for(kind, needed libraries of argv[0] when it is the rank itself); for Hydra, MPICH
// unless the program (first executable file among the arguments) links Open MPI.
RankMpi detect_rank_mpi(LauncherKind kind, const std::vector<std::string>& argv);

}  // namespace hpcsens::mpi
