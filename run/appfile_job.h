#pragma once
// `mpirun --app FILE` jobs: mpirun applies none of its command-line `-x` settings to an appfile's
// contexts, so hpcsens reads the user's appfile (a bounded regular file), writes a private copy
// into a fresh private directory (common/private_dir: only we can write there, so the file mpirun
// reads by name cannot be swapped), runs mpirun on the copy, and removes copy and directory after
// the job. The preload's settings travel in mpirun's own environment as Open MPI's
// mca_base_env_list (names, and LD_PRELOAD=path, which mpirun must not load itself), which Open MPI
// applies to every context: the copy's lines are the user's, byte for byte, so a line plain mpirun
// runs still runs. Only where that list cannot be used (a context line with its own -x, which Open
// MPI refuses beside it) do `-x` settings go in front of each line, within Open MPI's line limit.
#include <string>
#include <vector>

#include "common/safe_file.h"
#include "mpi/appfile.h"
#include "mpi/launcher.h"
#include "mpi/mpmd_programs.h"

namespace hpcsens::run {

struct AppfileJob {
  bool present = false;    // argv names an appfile (Open MPI only)
  std::string user_path;   // as the user gave it
  mpi::Appfile file;
  std::string copy_name;   // our copy in `private_dir`, once written
  safe_file::Dir private_dir;
};

// Reads the appfile argv names, if any. Throws InputError naming the file (and line) for a
// file that is not a regular file, too large, or that cannot be read as an appfile.
AppfileJob read_appfile_of(mpi::LauncherKind kind, const std::vector<std::string>& argv);

// The words of each app context: the appfile's context lines, else argv split at ':'.
std::vector<std::vector<std::string>> contexts_of(const AppfileJob& job, const std::vector<std::string>& argv);

// Writes the copy into a private directory and points plan.argv at it, the settings in mpirun's
// environment (mca_base_env_list, else `-x` in front of each line). "" or why not (the job then
// runs unmeasured).
std::string inject_into_appfile(AppfileJob& job, mpi::LaunchPlan& plan, const std::vector<mpi::EnvVar>& vars,
                                const std::string& run_id);

// Removes the copy and its private directory (after the job).
void remove_appfile_copy(AppfileJob& job);

}  // namespace hpcsens::run
