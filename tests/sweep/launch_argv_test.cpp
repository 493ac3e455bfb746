// Generated command lines: Slurm --cpu-freq, memory configuration reach, the calibrator's
// launcher, likwid and per-node knob commands. (A real Slurm is not started in the suite: see
// docs/user-guide.md; these lines are what would be run.)
#include <gtest/gtest.h>

#include "sweep/spec/launch_argv.h"

namespace hpcsens::sweep {
namespace {

TEST(SweepSlurm, CpuFreqGoesRightAfterSrunInKhz) {
  const Argv job = {"srun", "-n", "64", "--cpu-freq=high", "./app", "--cpu-freq=2"};
  EXPECT_EQ(with_slurm_cpu_freq(job, 2.4),
            (Argv{"srun", "--cpu-freq=2400000", "-n", "64", "./app", "--cpu-freq=2"}));
  EXPECT_EQ(shell_join(with_slurm_cpu_freq({"/usr/bin/srun", "./a"}, 1.2)), "/usr/bin/srun --cpu-freq=1200000 ./a");
  EXPECT_THROW(with_slurm_cpu_freq({"mpirun", "./a"}, 1.2), std::runtime_error);
}

TEST(SweepMemoryReach, PartitionConstraintNodesAndManual) {
  MemoryConfig part, cons, nodes, manual;
  part.name = "hbm", part.slurm_partition = "hbm-part";
  cons.name = "ddr", cons.slurm_constraint = "ddr5_4800";
  nodes.name = "n", nodes.nodes = {"c01", "c02"};
  manual.name = "m", manual.manual = "reboot";
  const Argv srun = {"srun", "-n", "4", "./a"};
  EXPECT_EQ(with_memory_config(srun, part), (Argv{"srun", "--partition=hbm-part", "-n", "4", "./a"}));
  EXPECT_EQ(with_memory_config(srun, cons), (Argv{"srun", "--constraint=ddr5_4800", "-n", "4", "./a"}));
  EXPECT_EQ(with_memory_config(srun, nodes), (Argv{"srun", "--nodelist=c01,c02", "-n", "4", "./a"}));
  EXPECT_EQ(with_memory_config(srun, manual), srun);
  EXPECT_EQ(with_memory_config({"mpirun", "-np", "4", "./a"}, nodes),
            (Argv{"mpirun", "--host", "c01,c02", "-np", "4", "./a"}));
  EXPECT_THROW(with_memory_config({"mpirun", "./a"}, part), std::runtime_error);
}

TEST(SweepLauncher, ApplicationIndexSkipsOptionValues) {
  EXPECT_EQ(application_index({"mpirun", "-np", "4", "--mca", "btl", "self", "-x", "A=1", "./a", "-n", "3"}), 8u);
  EXPECT_EQ(application_index({"srun", "--ntasks=4", "-N", "1", "./a"}), 4u);
  EXPECT_EQ(application_index({"mpirun", "--oversubscribe", "-np", "2", "./a"}), 4u);
  EXPECT_EQ(application_index({"./a", "x"}), 1u);
}

TEST(SweepLauncher, PrefixForTheCalibratorKeepsRanksAndHostsOrReplacesRanks) {
  const Argv job = {"mpirun", "--oversubscribe", "-np", "4", "--host", "a,b", "./app", "-np", "9"};
  EXPECT_EQ(launcher_prefix(job, 0), (Argv{"mpirun", "--oversubscribe", "-np", "4", "--host", "a,b"}));
  EXPECT_EQ(launcher_prefix(job, 8), (Argv{"mpirun", "--oversubscribe", "-np", "8", "--host", "a,b"}));
  EXPECT_EQ(launcher_prefix({"srun", "--ntasks=16", "./a"}, 2), (Argv{"srun", "--ntasks=2"}));
  EXPECT_THROW(launcher_prefix({"mpirun", "./a"}, 2), std::runtime_error);
  // A bare program is no launcher: the calibrator runs on its own (it was "sleep hpcsens-stream").
  EXPECT_EQ(launcher_prefix({"sleep", "20"}, 0), Argv{});
  EXPECT_EQ(launcher_prefix({"sh", "-c", "exec mpirun -np 2 ./a"}, 0), Argv{});
  EXPECT_EQ(launcher_prefix({"/usr/bin/mpiexec.hydra", "-n", "2", "./a"}, 0), (Argv{"/usr/bin/mpiexec.hydra", "-n", "2"}));
}

TEST(SweepLikwid, CommandLines) {
  EXPECT_EQ(likwid_cpu_command(2.4), (Argv{"likwid-setFrequencies", "-c", "N", "-f", "2.4"}));
  EXPECT_EQ(likwid_uncore_command({1.5, 2.0}), (Argv{"likwid-setFrequencies", "--umin", "1.5", "--umax", "2"}));
  EXPECT_EQ(likwid_reset_commands(true, true).size(), 2u);
  EXPECT_EQ(likwid_reset_commands(false, true)[0], (Argv{"likwid-setFrequencies", "--ureset"}));
}

TEST(SweepMultiNode, OneTaskPerNodeAppliesAndRestores) {
  EXPECT_EQ(shell_join(per_node_apply_command(4, "/opt/bin/hpcsens", "s.yaml", 3, "out")),
            "srun --nodes=4 --ntasks=4 --ntasks-per-node=1 --overlap --export=ALL,HPCSENS_SWEEP_NODE_TASK=1 /opt/bin/hpcsens sweep s.yaml --apply-point 3 --dir out");
  EXPECT_EQ(shell_join(per_node_restore_command(2, "hpcsens", "out dir")),
            "srun --nodes=2 --ntasks=2 --ntasks-per-node=1 --overlap --export=ALL,HPCSENS_SWEEP_NODE_TASK=1 hpcsens sweep --restore 'out dir'");
}

// Multi-node resctrl: Open MPI starts every other node's daemon through the agent named here.
TEST(SweepMultiNode, OpenMpiGetsTheLaunchAgentRightAfterTheLauncherWord) {
  const Argv job = {"mpirun", "--host", "n0,n1", "-np", "2", "./app", "-x"};
  const std::vector<std::string> agent = {"/opt/hpcsens", "resctrl-join", "--run", "p00-r1-a1", "--"};
  EXPECT_EQ(with_openmpi_launch_agent(job, agent, 4),
            (Argv{"mpirun", "--mca", "orte_launch_agent", "/opt/hpcsens resctrl-join --run p00-r1-a1 -- orted", "--host",
                  "n0,n1", "-np", "2", "./app", "-x"}));
  const Argv v5 = with_openmpi_launch_agent(job, agent, 5);
  EXPECT_EQ(v5[1], "--prtemca");
  EXPECT_EQ(v5[2], "prte_launch_agent");
  EXPECT_EQ(v5[3], "/opt/hpcsens resctrl-join --run p00-r1-a1 -- prted");
  // The application is still found (the calibrator's launcher is the part before it).
  EXPECT_EQ(application_index(v5), 8u);
  EXPECT_EQ(launcher_prefix(with_openmpi_launch_agent(job, agent, 4), 4).size(), 8u);
  // Open MPI splits the value at blanks; and a user's own agent would be overridden silently.
  EXPECT_THROW(with_openmpi_launch_agent(job, {"/my dir/hpcsens", "--"}, 4), std::runtime_error);
  EXPECT_THROW(with_openmpi_launch_agent({"mpirun", "--mca", "orte_launch_agent", "x", "./a"}, agent, 4),
               std::runtime_error);
  EXPECT_THROW(with_openmpi_launch_agent({"mpirun", "--launch-agent", "x", "./a"}, agent, 4), std::runtime_error);
}

TEST(SweepMultiNode, OpenMpiMajorVersionFromItsVersionText) {
  EXPECT_EQ(openmpi_major_version("mpirun (Open MPI) 4.1.4\n\nReport bugs to http://www.open-mpi.org/community/help/"), 4);
  EXPECT_EQ(openmpi_major_version("mpirun (Open MPI) 5.0.3\n"), 5);
  EXPECT_EQ(openmpi_major_version("mpirun (OpenRTE) 3.1.6\n"), 3);
  EXPECT_EQ(openmpi_major_version("HYDRA build details:\n    Version: 4.0.2\n"), 0);
  EXPECT_EQ(openmpi_major_version(""), 0);
}

}  // namespace
}  // namespace hpcsens::sweep
