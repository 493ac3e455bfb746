// Issue 20, slips: ranks killed by MPI_Abort or a signal leave what they measured, ranks that
// cannot (SIGKILL) are counted as lost, and more ranks than CPUs is said first. Real mpirun,
// real signals, the real `hpcsens run` and `hpcsens report`.
#include <unistd.h>

#include <filesystem>
#include <algorithm>
#include <fstream>
#include <string>

#include "tests/preload/mpirun_fixture.h"

using nlohmann::json;
using hpcsens::test::u;

namespace {

class Slips : public hpcsens::test::MpirunFixture {
 protected:
  // `hpcsens run` of prog_slips in `mode` with np ranks; its exit status.
  int run(int np, const std::string& mode) {
    return sh(std::string(HPCSENS_BIN) + " run --out " + dir_ + "/out -- " + HPCSENS_MPIRUN + " -np " +
              std::to_string(np) + " --oversubscribe " + PROG_SLIPS + " " + mode);
  }
  std::string record_path() const {
    for (const auto& e : std::filesystem::directory_iterator(dir_ + "/out"))
      if (e.path().extension() == ".json" && e.path().filename().string().find(".rank") == std::string::npos)
        return e.path().string();
    return "";
  }
  json run_record() const {
    const std::string path = record_path();
    return path.empty() ? json() : json::parse(std::ifstream(path));
  }
  static std::size_t count_of(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  }
};

TEST_F(Slips, RanksKilledBySignalLeaveWhatTheyMeasured) {
  // Every rank ends itself with SIGTERM after 3 barriers: each writes its partial from the handler
  // and still dies of SIGTERM (the launcher reports that, not us).
  EXPECT_NE(run(4, "term"), 0) << log();
  const json rec = run_record();
  ASSERT_TRUE(rec.is_object()) << log();
  EXPECT_EQ(rec.at("job").at("nranks"), 4);
  EXPECT_EQ(rec.at("complete"), false);
  // When the first rank dies the launcher ends the others (SIGTERM, then SIGKILL about a second
  // later): on 2 oversubscribed cores a rank not scheduled in that second is lost, and must then
  // be counted, never silently missing.
  ASSERT_GE(rec.at("ranks").size(), 1u) << rec.dump();
  const std::size_t lost = rec.contains("lost_ranks") ? rec.at("lost_ranks").at("count").get<std::size_t>() : 0;
  EXPECT_EQ(rec.at("ranks").size() + lost, 4u) << log() << rec.dump();
  for (const json& r : rec.at("ranks")) {
    SCOPED_TRACE("rank " + std::to_string(r.at("rank").get<int>()));
    // The first rank out of the third barrier may die while a slower one is still returning from
    // it: that one is ended by the launcher with 2 barriers counted (a call counts on return).
    const auto barriers = u(r.at("mpi_calls"), "MPI_Barrier", "count");
    EXPECT_GE(barriers, 2u);
    EXPECT_LE(barriers, 3u);
    EXPECT_GT(r.at("wall_s").get<double>(), 0);
  }
}

TEST_F(Slips, ASignalsPartialRecordHasTheRanksFiles) {
  EXPECT_NE(run(2, "term " + dir_), 0) << log();
  const json rec = run_record();
  ASSERT_TRUE(rec.is_object()) << log();
  ASSERT_GE(rec.at("ranks").size(), 1u) << rec.dump();
  for (const json& r : rec.at("ranks")) {
    const std::string rank = std::to_string(r.at("rank").get<int>());
    SCOPED_TRACE("rank " + rank);
    ASSERT_EQ(r.at("files").size(), 1u) << r.dump(1);
    const json& f = r.at("files")[0];
    // The byte 0xE9 as the four characters \xe9, the backslash doubled (docs/record-format.md).
    EXPECT_EQ(f.at("path"), dir_ + "/slip\\xe9\\\\\"q." + rank);
    EXPECT_EQ(f.at("interface"), "posix");
    EXPECT_EQ(f.at("opens"), 1);
    EXPECT_EQ(f.at("writes"), 2);
    EXPECT_EQ(f.at("bytes_written"), 220);
    EXPECT_EQ(f.at("write_sizes"), json({1, 1, 0, 0, 0, 0, 0, 0, 0, 0}));
    EXPECT_EQ(f.at("consecutive"), 2);
    EXPECT_GE(f.at("last_io_s").get<double>(), f.at("first_open_s").get<double>());
    EXPECT_EQ(r.at("files_dropped"), 0);
    EXPECT_EQ(u(r.at("io_calls"), "write", "bytes"), 220u);
    EXPECT_EQ(r.at("killed_by_signal"), 15);  // the partial's own sections kept in the assembly
    // Memory up to the signal, read in the handler as the full record reads it at finalize.
    const json& m = r.at("memory");
    EXPECT_GT(m.at("peak_rss_kib").get<long>(), 1000) << m.dump();
    EXPECT_LE(m.at("rss_kib").get<long>(), m.at("peak_rss_kib").get<long>());
    EXPECT_GT(m.at("node_total_kib").get<long>(), m.at("peak_rss_kib").get<long>());
  }
}

TEST_F(Slips, AbortLeavesTheAbortingRankAndTheRanksTheLauncherEnds) {
  EXPECT_NE(run(4, "abort"), 0) << log();
  const json rec = run_record();
  ASSERT_TRUE(rec.is_object()) << log();
  EXPECT_EQ(rec.at("job").at("nranks"), 4);
  // Rank 0 wrote its part in the MPI_Abort wrapper, ranks 1-3 from the SIGTERM the launcher
  // sent them; every one of them made its 3 barriers. Open MPI follows its SIGTERM with a SIGKILL
  // about a second later, so on 2 oversubscribed cores a rank not scheduled in that second is
  // lost: then it must be counted, never silently missing.
  const auto& ranks = rec.at("ranks");
  ASSERT_GE(ranks.size(), 1u) << log() << rec.dump();
  EXPECT_TRUE(std::any_of(ranks.begin(), ranks.end(), [](const json& r) { return r.at("rank") == 0; })) << rec.dump();
  const std::size_t lost = rec.contains("lost_ranks") ? rec.at("lost_ranks").at("count").get<std::size_t>() : 0;
  EXPECT_EQ(ranks.size() + lost, 4u) << log() << rec.dump();
  for (const json& r : ranks) {
    SCOPED_TRACE("rank " + std::to_string(r.at("rank").get<int>()));
    EXPECT_EQ(u(r.at("mpi_calls"), "MPI_Barrier", "count"), 3u);
  }
  // The page's title counts the job's ranks.
  ASSERT_EQ(sh(std::string(HPCSENS_BIN) + " report " + record_path() + " --format html -o " + dir_ + "/p.html"), 0)
      << log();
  std::ifstream in(dir_ + "/p.html");
  const std::string page((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(page.find("prog_slips, 4 ranks"), std::string::npos);
  EXPECT_EQ(page.find("1 ranks"), std::string::npos);
}

TEST_F(Slips, RankKilledWithSigkillIsCountedAsLost) {
  EXPECT_NE(run(4, "kill9"), 0) << log();
  const std::string said = log();
  const json rec = run_record();
  ASSERT_TRUE(rec.is_object()) << said;
  EXPECT_EQ(rec.at("job").at("nranks"), 4);
  // Rank 1 (SIGKILL) can leave nothing; the others get the launcher's SIGTERM and write their
  // partials, unless its SIGKILL a second later comes first on 2 oversubscribed cores: every rank
  // missing is counted and said.
  for (const json& r : rec.at("ranks")) EXPECT_NE(r.at("rank"), 1);
  ASSERT_TRUE(rec.contains("lost_ranks")) << said << rec.dump();
  const auto lost = rec.at("lost_ranks").at("count").get<std::size_t>();
  EXPECT_GE(lost, 1u);
  EXPECT_EQ(rec.at("ranks").size() + lost, 4u) << said << rec.dump();
  EXPECT_NE(said.find(std::to_string(lost) + " rank(s) of 4 left nothing"), std::string::npos) << said;
}

// log2 bucket of a message size (docs/record-format.md, msg_sizes).
std::size_t bucket(std::uint64_t bytes) { return bytes == 0 ? 0 : 64 - __builtin_clzll(bytes); }

TEST_F(Slips, MoreRanksThanCpusIsSaidFirst) {
  // One rank more than this host has CPUs online, whatever the host (at most 64: prog_slips).
  const int np = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)) + 1;
  ASSERT_LE(np, 64);
  ASSERT_EQ(run(np, "plain"), 0) << log();
  const json rec = run_record();
  ASSERT_EQ(rec.at("ranks").size(), static_cast<std::size_t>(np));
  for (const json& r : rec.at("ranks")) {
    const int k = r.at("rank").get<int>();
    SCOPED_TRACE("rank " + std::to_string(k));
    EXPECT_EQ(r.at("cpu").at("online"), np - 1);
    EXPECT_GE(r.at("cpu").at("used_s").get<double>(), 0);
    // MPI_Sendrecv: bytes and the size histogram by what was SENT, received bytes apart.
    const std::uint64_t sent = 8 * (k + 1), received = 8 * ((k + np - 1) % np + 1);
    EXPECT_EQ(u(r.at("mpi_calls"), "MPI_Sendrecv", "bytes"), sent);
    EXPECT_EQ(u(r.at("mpi_calls"), "MPI_Sendrecv", "bytes_received"), received);
    const json& hist = r.at("msg_sizes").at("MPI_Sendrecv");
    ASSERT_EQ(hist.size(), bucket(sent) + 1) << hist;
    EXPECT_EQ(hist.back(), 1) << hist;
  }
  // The tidy message-size table says the same, one row per rank.
  ASSERT_EQ(sh(std::string(HPCSENS_BIN) + " report " + record_path() + " --format csv --table msg_sizes"), 0) << log();
  EXPECT_EQ(count_of(log(), ",MPI_Sendrecv,"), static_cast<std::size_t>(np)) << log();
  EXPECT_NE(log().find("0,MPI_Sendrecv,4,8,15,1\n"), std::string::npos) << log();  // rank 0 sent 8 B
  ASSERT_EQ(sh(std::string(HPCSENS_BIN) + " report " + record_path()), 0) << log();
  EXPECT_NE(log().find("Oversubscribed (host "), std::string::npos) << log();
  EXPECT_NE(log().find(std::to_string(np) + " ranks on " + std::to_string(np - 1) + " online CPU"),
            std::string::npos)
      << log();
}

}  // namespace
