#include "run/appfile_job.h"

#include <fcntl.h>
#include <unistd.h>

#include "common/errors.h"
#include "common/preload_env.h"
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
                                const std::string& out_dir, const std::string& run_id) {
  for (const auto& v : vars) {
    if (mpi::inline_in_appfile(v.value)) continue;
    // mpirun must never load the preload itself, so LD_PRELOAD cannot travel by name.
    if (v.name == env::kPreload) return "the preload path cannot be written into an appfile line (blank or '#')";
    plan.launcher_env.push_back(v);
  }
  safe_file::Dir dir;
  if (auto err = safe_file::open_dir(out_dir, false, &dir); !err.empty()) return err;
  const std::string name = "." + run_id + ".appfile";
  if (auto err = safe_file::write_atomic(dir, name, mpi::rewrite_appfile(job.file, vars), 0600); !err.empty())
    return err;
  job.copy_name = name;
  const std::size_t at = mpi::appfile_argument(plan.argv);
  if (at == 0) return "no --app in the launch line";
  plan.argv[at] = dir.child(name);
  return {};
}

void remove_appfile_copy(const AppfileJob& job, const std::string& out_dir) {
  if (job.copy_name.empty()) return;
  safe_file::Dir dir;
  if (safe_file::open_dir(out_dir, false, &dir).empty()) ::unlinkat(dir.fd(), job.copy_name.c_str(), 0);
}

}  // namespace hpcsens::run
