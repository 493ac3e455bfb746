#include "run/appfile_job.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>

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

namespace {

constexpr const char* kEnvList = "OMPI_MCA_mca_base_env_list";

// Whether the settings can travel in mpirun's mca_base_env_list (Open MPI 4.x applies it to every
// appfile context, names taking their values from mpirun's environment) instead of in the lines:
// Open MPI refuses the list beside a context's own -x ("both the -x method and ... the MCA
// parameter"), the list splits at ';', and a list the user set another way stays theirs alone.
std::string env_list_problem(const AppfileJob& job, const mpi::LaunchPlan& plan, const std::string& preload) {
  for (const auto& c : job.file.contexts)
    for (const auto& w : c.words)
      if (w == "-x" || w == "--x") return "line " + std::to_string(c.line) + " sets its own -x";
  for (const auto& w : plan.argv)
    if (w.find("mca_base_env_list") != std::string::npos) return "the command line sets mca_base_env_list";
  if (std::getenv("OMPI_MCA_mca_base_env_list_delimiter")) return "a delimiter for mca_base_env_list is set";
  if (preload.find(';') != std::string::npos) return "the preload path holds a ';'";
  return "";
}

// "A;B;LD_PRELOAD=/path" after any list the user's environment already holds.
std::string env_list_value(const std::vector<mpi::EnvVar>& vars) {
  std::string list;
  if (const char* own = std::getenv(kEnvList); own && *own) list = own;
  for (const auto& v : vars)
    list += (list.empty() ? "" : ";") + (v.name == env::kPreload ? v.name + "=" + v.value : v.name);
  return list;
}

std::string write_copy(AppfileJob& job, mpi::LaunchPlan& plan, const std::string& text, const std::string& run_id) {
  if (auto err = safe_file::make_private_dir("appfile", &job.private_dir); !err.empty()) return err;
  const std::string name = run_id + ".appfile";
  if (auto err = safe_file::write_atomic(job.private_dir, name, text, 0600); !err.empty()) return err;
  job.copy_name = name;
  const std::size_t at = mpi::appfile_argument(plan.argv);
  if (at == 0) return "no --app in the launch line";
  plan.argv[at] = job.private_dir.child(name);
  return {};
}

}  // namespace

std::string inject_into_appfile(AppfileJob& job, mpi::LaunchPlan& plan, const std::vector<mpi::EnvVar>& vars,
                                const std::string& run_id) {
  std::string preload;
  for (const auto& v : vars) {
    if (v.name == env::kPreload) preload = v.value;
    // mpirun must never load the preload itself, so LD_PRELOAD never enters its environment.
    if (v.name != env::kPreload) plan.launcher_env.push_back(v);  // exported by name
  }
  // The lines stay as the user wrote them: a line plain mpirun runs still runs.
  const std::string why_not = env_list_problem(job, plan, preload);
  if (why_not.empty()) {
    plan.launcher_env.push_back({kEnvList, env_list_value(vars)});
    return write_copy(job, plan, mpi::rewrite_appfile(job.file, {}), run_id);
  }
  // Else in front of every context line, as `-x NAME` (values by name) and `-x LD_PRELOAD=path`.
  if (!mpi::inline_in_appfile(preload)) return "the preload path cannot be written into an appfile line (blank or '#')";
  const std::string text = mpi::rewrite_appfile(job.file, vars);
  if (const int line = mpi::appfile_line_over_limit(text); line > 0)
    return "line " + std::to_string(line) + " would be longer than Open MPI's limit of " +
           std::to_string(mpi::kOpenMpiAppfileLine) + " bytes per appfile line with the preload settings in front (" +
           why_not + ", so they cannot travel in mca_base_env_list)";
  return write_copy(job, plan, text, run_id);
}

void remove_appfile_copy(AppfileJob& job) {
  if (!job.private_dir.is_open()) return;
  safe_file::remove_private_dir(job.private_dir, {job.copy_name});
}

}  // namespace hpcsens::run
