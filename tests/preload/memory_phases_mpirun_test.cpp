// Issue 33 items 3 and 5 under real mpirun: each rank's peak memory (ranks[].memory) tells the
// rank that allocated 64 MiB from the others, and the report's per-node sum is its ranks' sum;
// the phase table of a compute run lists its set-up read and its periodic writes as phases.
#include <cstdio>
#include <map>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "mpirun_fixture.h"
#include "report/timeline_view.h"

namespace hpcsens::test {
namespace {

using nlohmann::json;

class MemoryPhasesMpirun : public MpirunFixture {
 protected:
  // "rank R KEY=V" lines of the log.
  std::map<int, long> printed(const std::string& key) const {
    std::map<int, long> out;
    const std::regex re("rank (\\d+) " + key + "=(\\d+)");
    const std::string text = log();
    for (std::sregex_iterator it(text.begin(), text.end(), re), end; it != end; ++it)
      out[std::stoi((*it)[1])] = std::stol((*it)[2]);
    return out;
  }
  std::string report(const std::string& format, const std::string& extra = "") {
    const std::string out = dir_ + "/report." + format;
    EXPECT_EQ(sh(std::string(HPCSENS_BIN) + " report " + run_file(dir_, "m1", ".json") + " --format " + format +
                 extra + " -o " + out),
              0)
        << log();
    std::ifstream in(out);
    return std::string((std::istreambuf_iterator<char>(in)), {});
  }
};

TEST_F(MemoryPhasesMpirun, PeakMemoryPerRankShowsTheRankThatAllocated) {
  ASSERT_EQ(mpirun(3, std::string(PROG_MEMORY) + " 64", true, "-x HPCSENS_EVENTS=none"), 0) << log();
  const auto own = printed("vmhwm_kib");
  const json rec = record();
  std::map<int, long> peak;
  long sum = 0;
  for (const auto& r : rec.at("ranks")) {
    const json& m = r.at("memory");
    peak[r.at("rank").get<int>()] = m.at("peak_rss_kib").get<long>();
    sum += m.at("peak_rss_kib").get<long>();
    EXPECT_GT(m.at("node_total_kib").get<long>(), m.at("peak_rss_kib").get<long>());
    EXPECT_GT(m.at("rss_kib").get<long>(), 0);
  }
  ASSERT_EQ(peak.size(), 3u);
  // 64 MiB = 65,536 KiB touched on rank 1; the ranks' other memory differs by a few MiB at most.
  for (int other : {0, 2}) {
    EXPECT_NEAR(peak[1] - peak[other], 65536, 8192) << "rank 1 " << peak[1] << " KiB, rank " << other << " " << peak[other];
    // The record's peak is read at finalize, after the program's own reading: never below it.
    EXPECT_GE(peak[other], own.at(other));
  }
  std::printf("[ measured ] peak RSS per rank (KiB): rank0 %ld, rank1 %ld, rank2 %ld\n", peak[0], peak[1], peak[2]);
  // The timeline's memory row: rank 1's samples reach 64 MiB above the others' while it holds them.
  std::map<int, long> sampled;
  for (const auto& r : rec.at("ranks")) {
    const json& t = r.at("timeline");
    ASSERT_EQ(t.at("rss_kib").size(), t.at("bins").get<std::size_t>());
    long top = 0;
    for (const auto& v : t["rss_kib"]) top = std::max(top, v.get<long>());
    sampled[r.at("rank").get<int>()] = top;
    // A sample is at most the peak, up to the kernel's per-thread RSS counters, synced lazily
    // (64 page faults each): a few hundred KiB (20 KiB over seen here).
    EXPECT_LE(top, r.at("memory").at("peak_rss_kib").get<long>() + 1024);
  }
  for (int other : {0, 2}) EXPECT_NEAR(sampled[1] - sampled[other], 65536, 8192) << sampled[1] << " " << sampled[other];
  // One host: the node's sum of peaks is the ranks' sum, in every format.
  const json j = json::parse(report("json"));
  const json& mem = j.at("derived").at("memory");
  ASSERT_EQ(mem.at("nodes").size(), 1u);
  EXPECT_EQ(mem["nodes"][0].at("peak_sum_kib").get<long>(), sum);
  EXPECT_EQ(mem.at("peak_rank_max_rank").get<int>(), 1);
  EXPECT_EQ(mem.at("peak_rank_max_kib").get<long>(), peak[1]);
  const std::string text = report("table");
  EXPECT_NE(text.find("peak memory per rank: max (VmHWM)"), std::string::npos) << text;
  EXPECT_NE(text.find("peak node memory (sum of its ranks' peaks)"), std::string::npos) << text;
  EXPECT_NE(report("md").find("| peak memory per rank: max (VmHWM)"), std::string::npos);
  const std::string csv = report("csv", " --table summary");
  EXPECT_NE(csv.find("peak_node_sum_kib," + std::to_string(sum) + "\n"), std::string::npos) << csv;
  EXPECT_NE(report("html").find("Memory per node"), std::string::npos);
}

TEST_F(MemoryPhasesMpirun, WhatThePreloadAddsToAPeak) {
  // Not a bound: this VM's number, printed for the methodology's table (docs/methodology.md).
  ASSERT_EQ(mpirun(2, std::string(PROG_MEMORY) + " 0", false), 0) << log();
  const auto plain = printed("vmhwm_kib");
  ASSERT_EQ(mpirun(2, std::string(PROG_MEMORY) + " 0", true, "-x HPCSENS_EVENTS=none"), 0) << log();
  const auto wrapped = printed("vmhwm_kib");
  ASSERT_EQ(plain.size(), 2u);
  ASSERT_EQ(wrapped.size(), 2u);
  std::printf("[ measured ] VmHWM before MPI_Finalize, rank 0: %ld KiB plain, %ld KiB with the preload (+%ld)\n",
              plain.at(0), wrapped.at(0), wrapped.at(0) - plain.at(0));
  EXPECT_GT(wrapped.at(0), 0);
}

// The phases of the record's timeline list the set-up read and each periodic write.
TEST_F(MemoryPhasesMpirun, ThePhaseTableListsTheSetUpReadAndThePeriodicWrites) {
  ASSERT_EQ(mpirun(2, PROG_BURSTS, true, "-x HPCSENS_EVENTS=none"), 0) << log();
  const json rec = record();
  const auto phases = report::timeline_phases(report::timelines_of(rec.at("ranks"), "record"));
  std::ostringstream table;
  for (const auto& p : phases)
    table << p.start_s << "-" << p.end_s << " " << p.activity << (p.burst ? " burst" : "") << "\n";
  // Rank 0's bursts as the program saw them (seconds since its MPI_Init returned, a few ms after
  // the timeline's start): every short one (at most two bins) must fall in an I/O phase. A write
  // the machine stretched (76 ms for 8 MiB to tmpfs at load, seen here) is not short: one rank of
  // two writing for many bins is half the time there, and its own neighbourhood.
  const double bin_s = rec.at("ranks").at(0).at("timeline").at("bin_s").get<double>();
  const std::regex re("rank 0 (read|write) ([0-9.]+) ([0-9.]+)");
  const std::string text = log();
  int bursts = 0, short_bursts = 0;
  for (std::sregex_iterator it(text.begin(), text.end(), re), end; it != end; ++it, ++bursts) {
    const double from = std::stod((*it)[2]), to = std::stod((*it)[3]), mid = (from + to) / 2;
    if (to - from > 2 * bin_s) continue;
    ++short_bursts;
    bool found = false;
    for (const auto& p : phases)
      found = found || (p.activity == "I/O" && p.start_s - 0.03 <= mid && mid <= p.end_s + 0.03);
    EXPECT_TRUE(found) << (*it)[1] << " at " << mid << " s is in no I/O phase:\n" << table.str();
  }
  EXPECT_EQ(bursts, 6) << text;
  // Stretched or not, the set-up read (both ranks at once) and most writes are I/O phases.
  int in_io = 0;
  for (std::sregex_iterator it(text.begin(), text.end(), re), end; it != end; ++it) {
    const double mid = (std::stod((*it)[2]) + std::stod((*it)[3])) / 2;
    for (const auto& p : phases)
      if (p.activity == "I/O" && p.start_s - 0.03 <= mid && mid <= p.end_s + 0.03) {
        ++in_io;
        break;
      }
  }
  EXPECT_GE(in_io, 4) << short_bursts << " short bursts\n" << table.str() << text;
  EXPECT_NE(report("table").find("I/O"), std::string::npos);
}

}  // namespace
}  // namespace hpcsens::test
