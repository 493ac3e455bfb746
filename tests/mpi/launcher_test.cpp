#include "mpi/launcher.h"
#include "mpi/launcher_args.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace hpcsens::mpi {
namespace {

using Args = std::vector<std::string>;

const std::vector<EnvVar> kVars = {{"HPCSENS_OUT", "/tmp/out dir"},
                                   {"HPCSENS_COMMAND", R"(["mpirun","-np","4","./a b"])"},
                                   {"LD_PRELOAD", "/opt/hpcsens/lib/libhpcsens_preload.so"}};

TEST(LauncherDetect, ByBasename) {
  EXPECT_EQ(classify_launcher("/usr/bin/orterun", ""), LauncherKind::kOpenMpi);
  EXPECT_EQ(classify_launcher("mpirun.openmpi", ""), LauncherKind::kOpenMpi);
  EXPECT_EQ(classify_launcher("/opt/mpich/bin/mpiexec.hydra", ""), LauncherKind::kMpichHydra);
  EXPECT_EQ(classify_launcher("mpiexec.mpich", ""), LauncherKind::kMpichHydra);
  EXPECT_EQ(classify_launcher("/usr/bin/srun", ""), LauncherKind::kSlurm);
  EXPECT_EQ(classify_launcher("./my_app", ""), LauncherKind::kSingleton);
  EXPECT_EQ(classify_launcher("/bin/echo", ""), LauncherKind::kSingleton);
}

TEST(LauncherDetect, AmbiguousNamesUseVersionText) {
  EXPECT_TRUE(needs_version_probe("/usr/bin/mpirun"));
  EXPECT_TRUE(needs_version_probe("mpiexec"));
  EXPECT_FALSE(needs_version_probe("srun"));
  EXPECT_FALSE(needs_version_probe("mpiexec.hydra"));
  EXPECT_EQ(classify_launcher("mpirun", "mpirun (Open MPI) 4.1.4\n\nReport bugs to ..."),
            LauncherKind::kOpenMpi);
  EXPECT_EQ(classify_launcher("mpiexec", "HYDRA build details:\n    Version: 4.0.2\n"),
            LauncherKind::kMpichHydra);
  EXPECT_EQ(classify_launcher("mpiexec", "Intel(R) MPI Library for Linux* OS, Version 2021.9"),
            LauncherKind::kMpichHydra);
  EXPECT_EQ(classify_launcher("mpirun", "some other launcher 1.0"), LauncherKind::kUnknown);
  EXPECT_EQ(classify_launcher("mpirun", ""), LauncherKind::kUnknown);
}

TEST(LauncherDetect, RealOpenMpiOnThisMachine) {
  // Debian's mpirun is Open MPI 4.1 (a link to orterun, so no probe is needed); its --version says so.
  EXPECT_EQ(detect_launcher("mpirun"), LauncherKind::kOpenMpi);
  EXPECT_EQ(detect_launcher("mpiexec"), LauncherKind::kOpenMpi);
  EXPECT_NE(probe_launcher_version("mpirun").find("Open MPI"), std::string::npos);
  EXPECT_EQ(detect_launcher("no-such-launcher-xyz"), LauncherKind::kSingleton);
  EXPECT_EQ(probe_launcher_version("/nonexistent/mpirun"), "");
}

// A fresh directory of launcher scripts and links to them, removed afterwards.
struct LauncherDir {
  std::string dir;
  LauncherDir() {
    char tmpl[] = "/tmp/hpcsens-launcher-XXXXXX";
    if (::mkdtemp(tmpl) != nullptr) dir = tmpl;
  }
  ~LauncherDir() { std::filesystem::remove_all(dir); }
  // A script `name` that answers --version with `version_text`; its path.
  std::string script(const std::string& name, const std::string& version_text) const {
    const std::string path = dir + "/" + name;
    std::ofstream(path) << "#!/bin/sh\necho '" << version_text << "'\n";
    ::chmod(path.c_str(), 0755);
    return path;
  }
  // A symbolic link `name` to `target`; its path ("" when it cannot be made).
  std::string link(const std::string& name, const std::string& target) const {
    const std::string path = dir + "/" + name;
    return ::symlink(target.c_str(), path.c_str()) == 0 ? path : "";
  }
};

// What `launcher`'s link target says (kUnknown: nothing) and what detection concludes.
void expect_kinds(const std::string& launcher, LauncherKind by_target, LauncherKind detected) {
  EXPECT_EQ(kind_by_link_target(launcher), by_target) << launcher;
  EXPECT_EQ(detect_launcher(launcher), detected) << launcher;
}

TEST(LauncherDetect, ALinkToADecisiveNameIsNotAskedForItsVersion) {
  const LauncherDir d;
  ASSERT_FALSE(d.dir.empty());
  // orterun that would claim to be Hydra if asked: the link's target name decides, unasked.
  d.script("orterun", "HYDRA build details:");
  expect_kinds(d.link("mpirun", "orterun"), LauncherKind::kOpenMpi, LauncherKind::kOpenMpi);
  // A chain of links (Debian's alternatives) to mpiexec.hydra.
  d.script("mpiexec.hydra", "mpirun (Open MPI) 4.1.4");
  d.link("alt-mpiexec", "mpiexec.hydra");
  EXPECT_EQ(detect_launcher(d.link("mpiexec", d.dir + "/alt-mpiexec")), LauncherKind::kMpichHydra);
  // Found through $PATH like the job's launcher word.
  const char* old_path = std::getenv("PATH");
  const std::string saved = old_path ? old_path : "";
  ::setenv("PATH", d.dir.c_str(), 1);
  EXPECT_EQ(kind_by_link_target("mpirun"), LauncherKind::kOpenMpi);
  ::setenv("PATH", saved.c_str(), 1);
}

TEST(LauncherDetect, ALinkToAnAmbiguousNameIsStillAskedForItsVersion) {
  const LauncherDir d;
  ASSERT_FALSE(d.dir.empty());
  // A site's wrapper (its name says nothing) and a plain mpiexec: both answer for themselves.
  d.script("site-wrapper", "HYDRA build details:");
  expect_kinds(d.link("mpirun", "site-wrapper"), LauncherKind::kUnknown, LauncherKind::kMpichHydra);
  expect_kinds(d.script("mpiexec", "mpirun (Open MPI) 5.0.3"), LauncherKind::kUnknown, LauncherKind::kOpenMpi);
  // srun under another name is not taken for srun: only Open MPI's and Hydra's names decide.
  d.script("srun", "some other launcher 1.0");
  EXPECT_EQ(kind_by_link_target(d.link("mpirun2", "srun")), LauncherKind::kUnknown);
  EXPECT_EQ(kind_by_link_target(d.dir + "/no-such-mpirun"), LauncherKind::kUnknown);
}

TEST(LauncherNames, AreStable) {
  EXPECT_EQ(launcher_name(LauncherKind::kOpenMpi), "openmpi");
  EXPECT_EQ(launcher_name(LauncherKind::kMpichHydra), "mpich-hydra");
  EXPECT_EQ(launcher_name(LauncherKind::kSlurm), "slurm");
  EXPECT_EQ(launcher_name(LauncherKind::kSingleton), "singleton");
  EXPECT_EQ(launcher_name(LauncherKind::kUnknown), "unknown");
}

TEST(PlanLaunch, OpenMpiInsertsDashXAfterLauncherAndKeepsUserDashX) {
  const Args user = {"mpirun", "-np", "4", "-x", "OMP_NUM_THREADS=2", "./app", "-x", "3"};
  const auto plan = plan_launch(LauncherKind::kOpenMpi, user, kVars);
  const Args want = {"mpirun",
                     "-x", "HPCSENS_OUT=/tmp/out dir",
                     "-x", R"(HPCSENS_COMMAND=["mpirun","-np","4","./a b"])",
                     "-x", "LD_PRELOAD=/opt/hpcsens/lib/libhpcsens_preload.so",
                     "-np", "4", "-x", "OMP_NUM_THREADS=2", "./app", "-x", "3"};
  EXPECT_EQ(plan.argv, want);
  EXPECT_TRUE(plan.launcher_env.empty()) << "nothing may leak into mpirun's own environment";
  EXPECT_TRUE(plan.warnings.empty());
}

TEST(PlanLaunch, HydraUsesGenvWithSeparateValue) {
  const Args user = {"mpiexec.hydra", "-n", "2", "./app", "arg with space"};
  const auto plan = plan_launch(LauncherKind::kMpichHydra, user, kVars);
  const Args want = {"mpiexec.hydra",
                     "-genv", "HPCSENS_OUT", "/tmp/out dir",
                     "-genv", "HPCSENS_COMMAND", R"(["mpirun","-np","4","./a b"])",
                     "-genv", "LD_PRELOAD", "/opt/hpcsens/lib/libhpcsens_preload.so",
                     "-n", "2", "./app", "arg with space"};
  EXPECT_EQ(plan.argv, want);
  EXPECT_TRUE(plan.launcher_env.empty());
}

TEST(PlanLaunch, SrunExportsAllAndMovesCommaValuesToItsEnvironment) {
  const Args user = {"srun", "-n", "8", "./app"};
  const auto plan = plan_launch(LauncherKind::kSlurm, user, kVars);
  const Args want = {"srun",
                     "--export=ALL,HPCSENS_OUT=/tmp/out dir,"
                     "LD_PRELOAD=/opt/hpcsens/lib/libhpcsens_preload.so",
                     "-n", "8", "./app"};
  EXPECT_EQ(plan.argv, want);
  // The JSON command has commas, which --export would split; srun copies it with ALL.
  ASSERT_EQ(plan.launcher_env.size(), 1u);
  EXPECT_EQ(plan.launcher_env[0].name, "HPCSENS_COMMAND");
  for (const auto& v : plan.launcher_env) EXPECT_NE(v.name, "LD_PRELOAD");
}

TEST(PlanLaunch, SrunExtendsTheUsersExport) {
  const std::vector<EnvVar> vars = {{"A", "1"}, {"LD_PRELOAD", "/l.so"}};
  auto plan = plan_launch(LauncherKind::kSlurm, {"srun", "--export=ALL,FOO=bar", "./app"}, vars);
  EXPECT_EQ(plan.argv, (Args{"srun", "--export=ALL,FOO=bar,A=1,LD_PRELOAD=/l.so", "./app"}));
  plan = plan_launch(LauncherKind::kSlurm, {"srun", "--export", "NONE", "./app"}, vars);
  EXPECT_EQ(plan.argv, (Args{"srun", "--export", "A=1,LD_PRELOAD=/l.so", "./app"}));
  // Without ALL a comma value cannot travel through srun's environment: say so.
  plan = plan_launch(LauncherKind::kSlurm, {"srun", "--export=FOO", "./app"},
                     {{"B", "x,y"}, {"LD_PRELOAD", "/l.so"}});
  EXPECT_EQ(plan.argv, (Args{"srun", "--export=FOO,LD_PRELOAD=/l.so", "./app"}));
  EXPECT_TRUE(plan.launcher_env.empty());
  ASSERT_EQ(plan.warnings.size(), 1u);
  EXPECT_NE(plan.warnings[0].find("B"), std::string::npos);
}

TEST(PlanLaunch, SingletonGetsEnvironmentDirectly) {
  const Args user = {"./app", "-x", "1"};
  const auto plan = plan_launch(LauncherKind::kSingleton, user, kVars);
  EXPECT_EQ(plan.argv, user);
  ASSERT_EQ(plan.launcher_env.size(), kVars.size());
  EXPECT_EQ(plan.launcher_env[2].name, "LD_PRELOAD");
}

TEST(PlanLaunch, UnknownLauncherRunsUnchangedWithWarning) {
  const Args user = {"mpirun", "-np", "2", "./app"};
  const auto plan = plan_launch(LauncherKind::kUnknown, user, kVars);
  EXPECT_EQ(plan.argv, user);
  EXPECT_TRUE(plan.launcher_env.empty());
  ASSERT_EQ(plan.warnings.size(), 1u);
  EXPECT_NE(plan.warnings[0].find("without measurement"), std::string::npos);
}

TEST(PlanLaunch, OpenMpiMpmdGetsTheSettingsInEveryAppContext) {
  // -x belongs to one app context; each ':'-separated context needs its own.
  const std::vector<EnvVar> one = {{"A", "1"}};
  const auto plan = plan_launch(LauncherKind::kOpenMpi,
                                Args{"mpirun", "-np", "1", "./a", ":", "-np", "2", "./b", "x", ":", "./c"}, one);
  EXPECT_EQ(plan.argv, (Args{"mpirun", "-x", "A=1", "-np", "1", "./a", ":", "-x", "A=1", "-np", "2", "./b",
                             "x", ":", "-x", "A=1", "./c"}));
}

TEST(PlanLaunch, HydraMpmdUsesGlobalOptionsBeforeTheFirstSection) {
  const std::vector<EnvVar> one = {{"A", "1"}};
  const auto plan = plan_launch(LauncherKind::kMpichHydra, Args{"mpiexec", "-n", "1", "./a", ":", "-n", "1", "./b"}, one);
  EXPECT_EQ(plan.argv, (Args{"mpiexec", "-genv", "A", "1", "-n", "1", "./a", ":", "-n", "1", "./b"}));
}

// Launcher options end at the program name, as each launcher parses its command line: a program's
// own options that look like the launcher's are left alone (issue 22).
TEST(LauncherArgs, OptionsEndAtTheProgramName) {
  using K = LauncherKind;
  EXPECT_EQ(program_index(K::kOpenMpi, {"mpirun", "-np", "2", "--mca", "btl", "self", "./p", "--app", "f"}), 6u);
  EXPECT_EQ(program_index(K::kOpenMpi, {"mpirun", "--oversubscribe", "-x", "A=1", "./p"}), 4u);
  EXPECT_EQ(program_index(K::kOpenMpi, {"mpirun", "--app", "f"}), 3u) << "none";
  EXPECT_EQ(program_index(K::kMpichHydra, {"mpiexec", "-genv", "A", "1", "-n", "2", "./p", "-n", "3"}), 6u);
  EXPECT_EQ(program_index(K::kSlurm, {"srun", "-n", "2", "-N1", "--mpi=pmix", "--export", "ALL", "./p"}), 7u);
  EXPECT_EQ(program_index(K::kSlurm, {"srun", "-n2", "--", "./p", "--export=NONE"}), 3u);
}

TEST(PlanLaunch, SrunLeavesTheProgramsOwnExportAlone) {
  const std::vector<EnvVar> vars = {{"A", "1"}};
  const auto plan = plan_launch(LauncherKind::kSlurm, {"srun", "-n", "2", "./app", "--export=NONE"}, vars);
  EXPECT_EQ(plan.argv, (Args{"srun", "--export=ALL,A=1", "-n", "2", "./app", "--export=NONE"}));
}

}  // namespace
}  // namespace hpcsens::mpi
