// Oversubscription (report/oversubscription.h): more ranks than online CPUs on a host, or most
// ranks mostly off the CPU, is said first in the answer and the ordinary reading is marked
// unreliable. Records whose answer is known by construction.
#include "report/oversubscription.h"

#include <gtest/gtest.h>

#include "record/run_record.h"
#include "report/headline.h"
#include "report/run_scan.h"

namespace hpcsens::report {
namespace {

using nlohmann::json;

TEST(Oversubscription, MoreRanksThanOnlineCpusOnAHost) {
  CpuTotals cpu;
  cpu.hosts["n1"] = {4, 8};
  cpu.hosts["n2"] = {40, 2};
  cpu.ranks = 44;
  EXPECT_EQ(oversubscription(cpu), "host n2: 40 ranks on 2 online CPUs");
}

TEST(Oversubscription, RanksMostlyOffTheCpuWhereHostsHaveCpusEnough) {
  CpuTotals cpu;
  cpu.hosts["n1"] = {8, 64};
  cpu.ranks = 8;
  cpu.starved = 3;  // more than a quarter
  EXPECT_EQ(oversubscription(cpu), "3 of 8 ranks were on a CPU for less than half of their time outside I/O");
  cpu.starved = 2;  // a quarter: ranks blocked in I/O or sleeping waits can do that
  EXPECT_EQ(oversubscription(cpu), "");
  CpuTotals one;  // a killed job whose only rank with a "cpu" object (MPI_Abort's) waited
  one.hosts["n1"] = {1, 64};
  one.ranks = 1;
  one.starved = 1;
  EXPECT_EQ(oversubscription(one), "1 of 1 rank was on a CPU for less than half of its time outside I/O");
}

TEST(Oversubscription, TheKernelsRunDelaySaysStarvedNotASleep) {
  CpuTotals cpu;
  cpu.add_rank("h", 64, 0.1, 1.0, 0.01);  // off the CPU 90 % of the time, but asleep: not starved
  cpu.add_rank("h", 64, 0.4, 1.0, 0.6);   // runnable and waiting for 0.6 of its 1 s: starved
  cpu.add_rank("h", 64, 0.1, 1.0);        // a record without run_delay_s: CPU time decides
  EXPECT_EQ(cpu.ranks, 3u);
  EXPECT_EQ(cpu.starved, 2u);
}

TEST(Oversubscription, OneRankPerCpuIsNot) {
  CpuTotals cpu;
  cpu.hosts["n1"] = {4, 4};
  cpu.ranks = 4;
  EXPECT_EQ(oversubscription(cpu), "");
  EXPECT_EQ(oversubscription(CpuTotals{}), "");  // records without "cpu" objects
}

// Four ranks of 12.5 s on host "h" with 2 online CPUs; rank 3 computes twice what the others do,
// and each rank was on a CPU for `used_s` of its time.
std::string crowded_record(double used_s, int online) {
  record::RunRecord rec;
  rec.job.nranks = 4;
  rec.timing.job_s = 12.5;
  for (int i = 0; i < 4; ++i) {
    record::RankRecord r;
    r.rank = i;
    r.host = "h";
    r.wall_s = 12.5;
    r.compute_s = i == 3 ? 10.0 : 5.0;
    r.mpi_s = r.wall_s - r.compute_s;
    r.mpi_calls["MPI_Barrier"] = {1, r.mpi_s, 0};
    rec.ranks.push_back(r);
  }
  json j = record::to_json(rec);
  for (auto& r : j.at("ranks")) r["cpu"] = {{"online", online}, {"allowed", online}, {"used_s", used_s}};
  return j.dump();
}

TEST(Oversubscription, SaidFirstAndTheImbalanceMarkedUnreliable) {
  const RunScan s = scan_run_record_text(crowded_record(6.0, 2), "crowded.json", 0);
  const RunFacts f = run_facts(s);
  EXPECT_EQ(s.measure.cpu.hosts.at("h").ranks, 4u);
  EXPECT_EQ(f.oversubscribed, "host h: 4 ranks on 2 online CPUs");
  const Answer a = run_answer(f);
  EXPECT_EQ(a.tone, "bad");
  EXPECT_EQ(a.headline.rfind("Oversubscribed (host h: 4 ranks on 2 online CPUs): ranks waited for a CPU, so MPI, "
                             "compute and imbalance figures are unreliable. Unreliable reading: Rank 3 computes",
                             0),
            0u)
      << a.headline;
  ASSERT_GE(a.advice.size(), 2u);
  EXPECT_NE(a.advice[0].find("at most one rank per CPU"), std::string::npos) << a.advice[0];
}

TEST(Oversubscription, StarvedRanksOnAHostWithCpusEnough) {
  // 4 ranks on 8 CPUs, each on a CPU 1 s of 12.5: all four starved.
  const RunFacts f = run_facts(scan_run_record_text(crowded_record(1.0, 8), "starved.json", 0));
  EXPECT_EQ(f.oversubscribed, "4 of 4 ranks were on a CPU for less than half of their time outside I/O");
  // The same ranks busy on their CPUs (spinning in MPI counts as busy): the plain imbalance answer.
  const RunFacts busy = run_facts(scan_run_record_text(crowded_record(12.0, 8), "busy.json", 0));
  EXPECT_EQ(busy.oversubscribed, "");
  EXPECT_EQ(run_answer(busy).headline.rfind("Rank 3 computes", 0), 0u) << run_answer(busy).headline;
}

}  // namespace
}  // namespace hpcsens::report
