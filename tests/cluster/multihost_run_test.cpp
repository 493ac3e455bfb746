// `hpcsens run` on a real two-host cluster (ns_cluster.sh: network + UTS namespaces, sshd,
// Slurm): 4 ranks on node0 and node1 started by Open MPI's mpirun over ssh, by MPICH's Hydra over
// ssh and by srun; a rank killed on one host; ranks reaching MPI_Finalize at different times.
#include <algorithm>
#include <chrono>
#include <map>
#include <set>

#include "cluster_env.h"
#include "tests/common/report_text.h"

namespace hpcsens::cluster {
namespace {

using nlohmann::json;

const std::string kHpcsens = HPCSENS_EXE;

// The counts cluster_prog.c documents for every rank.
void expect_exact_calls(const json& rank) {
  const auto& c = rank.at("mpi_calls");
  EXPECT_EQ(c.at("MPI_Sendrecv").at("count"), 4) << rank;
  EXPECT_EQ(c.at("MPI_Sendrecv").at("bytes"), 256) << rank;  // sent; received apart (issue 20)
  EXPECT_EQ(c.at("MPI_Sendrecv").at("bytes_received"), 256) << rank;
  EXPECT_EQ(c.at("MPI_Allreduce").at("count"), 3) << rank;
  EXPECT_EQ(c.at("MPI_Barrier").at("count"), 1) << rank;
}

// What every 2-host, 4-rank record must say, whichever launcher started it.
void expect_two_host_record(const json& rec, const std::string& launcher) {
  ASSERT_TRUE(rec.is_object()) << "no record";
  EXPECT_EQ(rec.at("job").at("launcher"), launcher);
  EXPECT_EQ(rec.at("job").at("nranks"), 4);
  EXPECT_EQ(rec.at("job").at("hosts"), json({"node0", "node1"}));
  EXPECT_EQ(rec.at("complete"), true);
  // Two hosts, two clocks: the synchronised span is withheld, and the method says why.
  EXPECT_TRUE(rec.at("timing").at("job_sync_s").is_null()) << rec.at("timing");
  EXPECT_NE(rec.at("timing").at("method").get<std::string>().find("unsynchronised clocks"), std::string::npos);
  EXPECT_GT(rec.at("timing").at("job_s").get<double>(), 0.0);
  ASSERT_EQ(rec.at("ranks").size(), 4u);
  std::multiset<std::string> hosts;
  for (const auto& r : rec.at("ranks")) {
    hosts.insert(r.at("host").get<std::string>());
    // Each rank's own clock, in order (t0 init barrier t1 ... t2 finalize barrier t3).
    EXPECT_LT(r.at("t0").get<double>(), r.at("t1").get<double>()) << r;
    EXPECT_LE(r.at("t1").get<double>(), r.at("t2").get<double>()) << r;
    EXPECT_LT(r.at("t2").get<double>(), r.at("t3").get<double>()) << r;
    expect_exact_calls(r);
  }
  EXPECT_EQ(hosts.count("node0"), 2u);
  EXPECT_EQ(hosts.count("node1"), 2u);
  // One counter agent per host: rank 0's served node0's two ranks, not all four; node1's ranks
  // were answered by their own host's agent, the same way (values, or the same reason).
  EXPECT_EQ(rec.at("preload").at("counter_agent_ranks"), 2) << rec.at("preload");
  for (const auto& r : rec.at("ranks"))
    EXPECT_EQ(r.at("counters_status"), rec.at("ranks")[0].at("counters_status")) << "rank " << r.at("rank");
}

using hpcsens::testing::unwrapped;

class MultiHostRun : public ClusterTest {
 protected:
  // `hpcsens run -- JOB...` on node0, the login node.
  Result wrapped(const std::vector<std::string>& job) {
    std::vector<std::string> args = {kHpcsens, "run", "--out", work_ + "/out", "--"};
    args.insert(args.end(), job.begin(), job.end());
    return on_host("node0", args, work_);
  }
};

TEST_F(MultiHostRun, OpenMpiMpirunOverSshTwoHostsFourRanks) {
  const auto r = wrapped({"mpirun", "--host", "node0:2,node1:2", "-np", "4", CLUSTER_PROG_OMPI});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "cluster_prog: ranks=4 sum=14.0");
  const auto rec = record_of(r);
  expect_two_host_record(rec, "openmpi");
  // Ranks 0,1 on node0, 2,3 on node1: Open MPI fills hosts in order.
  EXPECT_EQ(rec["ranks"][0]["host"], "node0");
  EXPECT_EQ(rec["ranks"][3]["host"], "node1");
}

// The network-delay knob (issue 21) slows the interconnect: across hosts only messages between
// them are delayed, a host's own shared memory is not; on one host every message is.
TEST_F(MultiHostRun, NetworkKnobDelaysOnlyMessagesBetweenHosts) {
  const auto knob = [&](const std::string& hosts) {
    const auto r = wrapped({"mpirun", "--host", hosts, "-np", "4", "-x", "HPCSENS_NET_LATENCY_US=100",
                            CLUSTER_PROG_OMPI});
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_EQ(r.out, "cluster_prog: ranks=4 sum=14.0");
    const json nd = record_of(r).at("preload").at("net_delay");
    return nd;
  };
  // Rank 0 (on node0 with rank 1): its 4 Sendrecv go to rank 1, on its own host, and are not
  // delayed; 3 Allreduce and 1 Barrier over 4 ranks take 2 steps each: 8 messages of 100 us.
  json nd = knob("node0:2,node1:2");
  EXPECT_EQ(nd.at("nodes"), 2) << nd;
  EXPECT_EQ(nd.at("scope").get<std::string>().rfind("messages between nodes", 0), 0u) << nd;
  EXPECT_NEAR(nd.at("requested_s").get<double>(), 8 * 100e-6, 1e-6) << nd;
  // All four on node0: every message is delayed, the Sendrecvs too (4 + 8).
  nd = knob("node0:4");
  EXPECT_EQ(nd.at("nodes"), 1) << nd;
  EXPECT_EQ(nd.at("scope").get<std::string>().rfind("every message", 0), 0u) << nd;
  EXPECT_NEAR(nd.at("requested_s").get<double>(), 12 * 100e-6, 1e-6) << nd;
}

TEST_F(MultiHostRun, MpichHydraOverSshTwoHostsFourRanks) {
  const auto r = wrapped({MPICH_HYDRA, "-hosts", "node0:2,node1:2", "-n", "4", CLUSTER_PROG_MPICH});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "cluster_prog: ranks=4 sum=14.0");
  const auto rec = record_of(r);
  expect_two_host_record(rec, "mpich-hydra");
  EXPECT_NE(rec["job"]["mpi_library"].get<std::string>().find("MPICH"), std::string::npos);
}

TEST_F(MultiHostRun, SrunTwoNodesFourRanksRecordsTheSlurmJob) {
  const auto r = wrapped({"srun", "--mpi=pmix", "-N", "2", "-n", "4", CLUSTER_PROG_OMPI});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "cluster_prog: ranks=4 sum=14.0");
  const auto rec = record_of(r);
  expect_two_host_record(rec, "slurm");
  // Slurm's facts about the job, as the ranks saw them.
  ASSERT_TRUE(rec.contains("slurm")) << rec.dump(1);
  EXPECT_GT(std::stol(rec["slurm"]["job_id"].get<std::string>()), 0);
  EXPECT_EQ(rec["slurm"]["partition"], "debug");
  EXPECT_EQ(rec["slurm"]["nodelist"], "node[0-1]");
  EXPECT_EQ(rec["slurm"]["nnodes"], 2);
}

// Sets the node-local fake of /sys/cray/pm_counters that Slurm's pm_counters plugin reads
// (ns_cluster.sh) to `joules` on every host.
void set_pm_counters(unsigned long long joules) {
  for (const char* h : {"node0", "node1"}) {
    const auto r = on_host(h, {"/bin/sh", "-c", "echo " + std::to_string(joules) + " > /sys/cray/pm_counters/energy && echo 100 > "
                               "/sys/cray/pm_counters/power"}, "/tmp");
    ASSERT_EQ(r.status, 0) << h << ": " << r.err;
  }
}

// The record path hpcsens run printed on stderr ("hpcsens: record: PATH").
std::string record_path(const Result& r) {
  const std::string tag = "hpcsens: record: ";
  const auto at = r.err.find(tag);
  if (at == std::string::npos) return "";
  const auto from = at + tag.size();
  return r.err.substr(from, r.err.find_first_of(" \n", from) - from);
}

// Inside an allocation hpcsens asks Slurm (sacct) for its own energy figure of the run's steps
// (issue 31). The cluster keeps accounting (slurmdbd) and gathers energy with Slurm's own
// pm_counters plugin from a fake per node; each node's first rank adds 3 x 7 J there while the
// step runs, so Slurm's ConsumedEnergy for the step is 2 x 21 J, and the record and the report
// carry exactly that, beside (not mixed with) hpcsens' own reading.
TEST_F(MultiHostRun, InsideAnAllocationTheRecordCarriesSlurmsConsumedEnergy) {
  set_pm_counters(1000);
  const auto r = on_host("node0", {"salloc", "-N", "2", "-n", "2", kHpcsens, "run", "--out", work_ + "/out", "--", "srun",
                                   "--mpi=pmix", "-N", "2", "-n", "2", ENERGY_PROG, "/sys/cray/pm_counters/energy",
                                   "1000000000", "7", "3"}, work_, 120);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const auto rec = record_of(r);
  ASSERT_TRUE(rec.contains("energy") && rec["energy"].contains("slurm")) << rec.dump(1).substr(0, 4000);
  const auto& s = rec["energy"]["slurm"];
  const std::string id = rec["slurm"]["job_id"].get<std::string>();
  EXPECT_EQ(s["job_id"], id);
  EXPECT_EQ(s["source"], "slurm sacct ConsumedEnergyRaw");
  ASSERT_EQ(s["available"], true) << s.dump(1);
  EXPECT_DOUBLE_EQ(s["energy_j"].get<double>(), 42.0) << s.dump(1);
  ASSERT_EQ(s["steps"].size(), 1u) << s.dump(1);
  EXPECT_EQ(s["steps"][0]["step"], id + ".0");
  EXPECT_DOUBLE_EQ(s["steps"][0]["energy_j"].get<double>(), 42.0);
  EXPECT_LE(s["steps"][0]["start_s"].get<double>(), s["steps"][0]["end_s"].get<double>());
  const auto text = on_host("node0", {kHpcsens, "report", record_path(r)}, work_);
  EXPECT_NE(unwrapped(text.out).find("energy (Slurm)   42 J over step(s) " + id + ".0 of Slurm job " + id),
            std::string::npos) << text.out.substr(0, 3000);
}

// The same plugin with nothing to read (its file says 0, as on a node without the sensor): Slurm
// records no value, and the record says so instead of taking 0 J for a measurement.
TEST_F(MultiHostRun, InsideAnAllocationWithoutSlurmEnergyTheRecordSaysWhy) {
  set_pm_counters(0);
  const auto r = on_host("node0", {"salloc", "-N", "2", "-n", "2", kHpcsens, "run", "--out", work_ + "/out", "--", "srun",
                                   "--mpi=pmix", "-n", "2", CLUSTER_PROG_OMPI}, work_, 120);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "cluster_prog: ranks=2 sum=5.0");
  const auto rec = record_of(r);
  const auto& s = rec["energy"]["slurm"];
  EXPECT_EQ(s["available"], false) << s.dump(1);
  EXPECT_NE(s["reason"].get<std::string>().find("Slurm recorded no energy for step(s) " +
                                                rec["slurm"]["job_id"].get<std::string>() + ".0"),
            std::string::npos) << s.dump(1);
  EXPECT_FALSE(s.contains("energy_j"));
}

// A fake powercap tree at the same path on every node, which the mount namespaces keep apart
// (DIR/local is node-local): one package zone whose counter starts at start_uj[host].
std::string plant_powercap(const std::map<std::string, unsigned long long>& start_uj, unsigned long long max_uj) {
  const std::string root = Cluster::dir() + "/local/powercap";
  for (const auto& [host, start] : start_uj) {
    const std::string z = root + "/intel-rapl:0";
    const auto r = on_host(host, {"/bin/sh", "-c", "rm -rf " + root + " && mkdir -p " + z + " && echo package-0 > " + z +
                                  "/name && echo " + std::to_string(max_uj) + " > " + z + "/max_energy_range_uj && echo " +
                                  std::to_string(start) + " > " + z + "/energy_uj && chmod 400 " + z + "/energy_uj"},
                           "/tmp");
    EXPECT_EQ(r.status, 0) << host << ": " << r.err;
  }
  return root;
}

// Each node's energy is read on that node (issue 31): node0 by `hpcsens run`, node1 by its ranks'
// counter agent, which hands it over with the ranks' stop; the record has both, exact, and
// node1's counter wrapped once on the way.
TEST_F(MultiHostRun, EachNodesEnergyIsReadOnThatNode) {
  constexpr unsigned long long kMax = 99999999;  // 100 J counters
  const std::string root = plant_powercap({{"node0", 1000}, {"node1", kMax - 500000}}, kMax);
  const auto r = on_host("node0", {"env", "HPCSENS_POWERCAP_ROOT=" + root, kHpcsens, "run", "--out", work_ + "/out", "--",
                                   "mpirun", "--host", "node0:2,node1:2", "-np", "4", ENERGY_PROG,
                                   root + "/intel-rapl:0/energy_uj", std::to_string(kMax), "1000000", "3"},
                         work_);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const auto rec = record_of(r);
  ASSERT_TRUE(rec.contains("energy")) << rec.dump(1).substr(0, 3000);
  const auto& e = rec["energy"];
  EXPECT_EQ(e["available"], true) << e.dump(1);
  ASSERT_EQ(e["nodes"].size(), 2u) << e.dump(1);
  std::map<std::string, json> by_host;
  for (const auto& n : e["nodes"]) by_host[n["host"].get<std::string>()] = n;
  ASSERT_EQ(by_host.count("node0") + by_host.count("node1"), 2u) << e.dump(1);
  EXPECT_EQ(by_host["node0"]["read_by"], "hpcsens run");
  EXPECT_EQ(by_host["node1"]["read_by"], "node counter agent");
  for (const char* h : {"node0", "node1"}) {
    EXPECT_EQ(by_host[h]["available"], true) << by_host[h].dump(1);
    EXPECT_DOUBLE_EQ(by_host[h]["joules_by_domain"]["package"].get<double>(), 3.0) << h;
    EXPECT_EQ(by_host[h]["root"], root);
  }
  EXPECT_EQ(by_host["node0"]["domains"][0]["wraps"], 0);
  EXPECT_EQ(by_host["node1"]["domains"][0]["wraps"], 1);
  for (const auto& rank : rec["ranks"]) EXPECT_FALSE(rank.contains("node_energy")) << "moved into the energy section";
  // The report names both nodes and leaves none out.
  EXPECT_NE(unwrapped(r.err).find("node1: package 3 J"), std::string::npos) << r.err;
  EXPECT_EQ(unwrapped(r.err).find("not measured: node"), std::string::npos) << r.err;
}

// With counters off no agent runs, so node1 is named as not measured, with why.
TEST_F(MultiHostRun, WithoutANodeAgentTheOtherNodeIsNamedAsNotMeasured) {
  const std::string root = plant_powercap({{"node0", 0}, {"node1", 0}}, 99999999);
  const auto r = on_host("node0", {"env", "HPCSENS_POWERCAP_ROOT=" + root, kHpcsens, "run", "--events", "none", "--out",
                                   work_ + "/out", "--", "mpirun", "--host", "node0:2,node1:2", "-np", "4", ENERGY_PROG},
                         work_);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const auto rec = record_of(r);
  ASSERT_EQ(rec["energy"]["nodes"].size(), 1u) << rec["energy"].dump(1);
  EXPECT_NE(unwrapped(r.err).find("not measured: node1 (ranks ran there too, but no counter agent"), std::string::npos)
      << r.err;
}

// A rank dies by SIGKILL on node1: the launcher ends the job; hpcsens returns what the job
// returned, promptly, and nothing of the job stays behind on either host.
TEST_F(MultiHostRun, RankKilledOnOneHostKeepsTheJobsStatusAndHangsNothing) {
  const std::vector<std::string> job = {"mpirun", "--host", "node0:2,node1:2", "-np", "4", CLUSTER_PROG_OMPI,
                                        "kill:3"};
  const auto direct = on_host("node0", job, work_, 60);
  ASSERT_NE(direct.status, 0) << direct.out << direct.err;
  ASSERT_NE(direct.status, -1) << "the job itself hung";
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = wrapped(job);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.status, direct.status) << r.err;
  EXPECT_LT(s, 30.0);
  EXPECT_NE(r.err.find("hpcsens"), std::string::npos) << "hpcsens says what it found:\n" << r.err;
  // No rank of the job is left on any host (the cluster shares one PID namespace).
  const auto left = sweep::testing::run({"/usr/bin/pgrep", "-f", CLUSTER_PROG_OMPI}, work_, 10);
  EXPECT_EQ(left.status, 1) << "still running: " << left.out;
}

// Ranks reach MPI_Finalize 0.3 s apart: the finalize barrier absorbs the spread, the record is
// complete, and each rank's work span shows its own delay.
TEST_F(MultiHostRun, RanksArrivingAtFinalizeAtDifferentTimes) {
  const auto r = wrapped({"mpirun", "--host", "node0:2,node1:2", "-np", "4", CLUSTER_PROG_OMPI, "stagger:300"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const auto rec = record_of(r);
  expect_two_host_record(rec, "openmpi");
  const auto& ranks = rec["ranks"];
  const double w0 = ranks[0]["wall_s"].get<double>(), w3 = ranks[3]["wall_s"].get<double>();
  EXPECT_GT(w3 - w0, 0.8) << "rank 3 slept 0.9 s longer than rank 0";
  // The bound includes the latest arrival.
  EXPECT_GT(rec["timing"]["job_s"].get<double>(), 0.9);
  EXPECT_EQ(rec["imbalance"]["slowest"][0], 3);
}

}  // namespace
}  // namespace hpcsens::cluster
