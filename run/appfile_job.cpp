#include "run/appfile_job.h"

#include <fcntl.h>
#include <unistd.h>

#include "common/errors.h"
#include "common/preload_env.h"
#include "common/private_dir.h"
#include "common/safe_file.h"

namespace hpcsens::run {

AppfileJob read_appfile_of(mpi::LauncherKind kind, const std::vector<std::string>& argv) {
  AppfileJob job;
  if (kind != mpi::LauncherKind::kOpenMpi) return job;
  const std::size_t at = mpi::appfile_argument(argv);
  if (at == 0) return job;
  job.present = true;
  job.user_path = argv[at];
  const std::string text = safe_file::read_input_file(job.user_path, mpi::kMaxAppfileBytes);
  int line = 0;
  std::string why;
  if (!mpi::parse_appfile(text, &job.file, &line, &why))
    throw InputError(line > 0 ? job.user_path + ":" + std::to_string(line) : job.user_path, "appfile: " + why);
  return job;
}

std::vector<std::vector<std::string>> contexts_of(const AppfileJob& job, const std::vector<std::string>& argv) {
  if (!job.present) return mpi::app_contexts(argv);
  std::vector<std::vector<std::string>> out;
  for (const auto& c : job.file.contexts) out.push_back(c.words);
  return out;
}

std::string inject_into_appfile(AppfileJob& job, mpi::LaunchPlan& plan, const std::vector<mpi::EnvVar>& vars,
                                const std::string& run_id) {
  for (const auto& v : vars) {
    // mpirun must never load the preload itself, so LD_PRELOAD cannot travel by name.
    if (v.name == env::kPreload && !mpi::inline_in_appfile(v.value))
      return "the preload path cannot be written into an appfile line (blank or '#')";
    if (v.name != env::kPreload) plan.launcher_env.push_back(v);  // exported by name (-x NAME)
  }
  const std::string text = mpi::rewrite_appfile(job.file, vars);
  if (const int line = mpi::appfile_line_over_limit(text); line > 0)
    return "line " + std::to_string(line) + " would be longer than Open MPI's limit of " +
           std::to_string(mpi::kOpenMpiAppfileLine) + " bytes per appfile line with the preload settings in front";
  if (auto err = safe_file::make_private_dir("appfile", &job.private_dir); !err.empty()) return err;
  const std::string name = run_id + ".appfile";
  if (auto err = safe_file::write_atomic(job.private_dir, name, text, 0600); !err.empty()) return err;
  job.copy_name = name;
  const std::size_t at = mpi::appfile_argument(plan.argv);
  if (at == 0) return "no --app in the launch line";
  plan.argv[at] = job.private_dir.child(name);
  return {};
}

void remove_appfile_copy(AppfileJob& job) {
  if (!job.private_dir.is_open()) return;
  safe_file::remove_private_dir(job.private_dir, {job.copy_name});
}

}  // namespace hpcsens::run
