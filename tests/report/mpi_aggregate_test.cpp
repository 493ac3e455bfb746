// mpiP's aggregate tables from a hand-made two-rank record whose sums are worked out below by
// hand, and the class of every MPI-time call of preload/mpi_calls.tbl (the one table of names).
#include <gtest/gtest.h>

#include <fmt/core.h>

#include <fstream>
#include <map>
#include <sstream>

#include "report/callsite_view.h"
#include "report/html_report.h"
#include "report/mpi_aggregate.h"
#include "report/record_output.h"
#include "report/run_report.h"

namespace hpcsens::report {
namespace {

// Rank 0: wall 10 s, MPI 4 s (Allreduce 3 s x100 of 800 B, Send 1 s x10 of 10,000 B), I/O 1 s
// with 2,000,000 B written. Rank 1: wall 10 s, MPI 2 s (Allreduce 1 s x100 of 800 B, Recv 0.5 s
// x10 receiving 10,000 B, Waitall 0.5 s x5), I/O 0 s.
record::RunRecord two_ranks() {
  record::RunRecord rec;
  rec.job.nranks = 2;
  for (int i = 0; i < 2; ++i) {
    record::RankRecord r;
    r.rank = i;
    r.wall_s = 10;
    r.mpi_s = i == 0 ? 4 : 2;
    r.io_s = i == 0 ? 1 : 0;
    r.compute_s = r.wall_s - r.mpi_s - r.io_s;
    if (i == 0) {
      r.io_bytes_written = 2000000;
      r.mpi_calls["MPI_Allreduce"] = {100, 3.0, 800};
      r.mpi_calls["MPI_Send"] = {10, 1.0, 10000};
    } else {
      r.mpi_calls["MPI_Allreduce"] = {100, 1.0, 800};
      r.mpi_calls["MPI_Recv"] = {10, 0.5, 10000};
      r.mpi_calls["MPI_Waitall"] = {5, 0.5, 0};
    }
    rec.ranks.push_back(r);
  }
  return rec;
}

TEST(MpiAggregate, PercentagesOfSummedWallAndMpiTime) {
  const MpiAggregate a = mpi_aggregate(scan_of(two_ranks()));
  EXPECT_DOUBLE_EQ(a.wall_s, 20.0);
  EXPECT_DOUBLE_EQ(a.mpi_s, 6.0);
  EXPECT_DOUBLE_EQ(a.calls_s, 6.0);
  ASSERT_EQ(a.calls.size(), 4u);
  EXPECT_EQ(a.calls[0].name, "MPI_Allreduce");  // 4 s of 6: most time first
  EXPECT_EQ(a.calls[0].count, 200u);
  EXPECT_DOUBLE_EQ(a.calls[0].app_pct, 20.0);             // 4 / 20
  EXPECT_NEAR(a.calls[0].mpi_pct, 400.0 / 6.0, 1e-12);    // 4 / 6
  EXPECT_EQ(a.calls[1].name, "MPI_Send");
  EXPECT_DOUBLE_EQ(a.calls[1].app_pct, 5.0);
  EXPECT_EQ(a.calls[2].name, "MPI_Recv");  // 0.5 s ties with Waitall: by name
  EXPECT_EQ(a.calls[3].name, "MPI_Waitall");
  double mpi_pct = 0;
  for (const auto& c : a.calls) mpi_pct += c.mpi_pct;
  EXPECT_NEAR(mpi_pct, 100.0, 1e-9);
  // Sent bytes: 1,600 by Allreduce and 10,000 by Send; Recv's bytes are received, never sent.
  EXPECT_EQ(a.mpi_bytes_sent, 11600u);
  EXPECT_EQ(a.calls[2].bytes_sent, 0u);
  EXPECT_EQ(a.calls[2].bytes_received, 10000u);
  EXPECT_DOUBLE_EQ(a.class_s[static_cast<std::size_t>(MpiClass::kCollective)], 4.0);
  EXPECT_DOUBLE_EQ(a.class_s[static_cast<std::size_t>(MpiClass::kPointToPoint)], 1.5);
  EXPECT_DOUBLE_EQ(a.class_s[static_cast<std::size_t>(MpiClass::kCompletion)], 0.5);
  EXPECT_DOUBLE_EQ(rate_mbs(a.mpi_bytes_sent, a.calls_s), 11600.0 / 6.0 / 1e6);
  EXPECT_DOUBLE_EQ(rate_mbs(a.io_bytes, a.io_s), 2.0);  // 2,000,000 B in 1 s
  EXPECT_EQ(rate_mbs(5, 0), 0.0);
}

TEST(MpiAggregate, TablesShowTheNumbersWithoutExponents) {
  const MpiAggregate a = mpi_aggregate(scan_of(two_ranks()));
  const Table time = aggregate_time_table(a, 0);
  ASSERT_EQ(time.rows.size(), 4u);
  EXPECT_EQ(time.rows[0], (std::vector<std::string>{"MPI_Allreduce", "collective", "200", "4.000000", "20.00", "66.67"}));
  const Table sent = aggregate_sent_table(a, 0);
  ASSERT_EQ(sent.rows.size(), 2u);  // only calls that sent bytes
  EXPECT_EQ(sent.rows[0], (std::vector<std::string>{"MPI_Send", "10", "10,000", "1,000.0", "86.21"}));
  EXPECT_EQ(sent.rows[1], (std::vector<std::string>{"MPI_Allreduce", "200", "1,600", "8.0", "13.79"}));
  EXPECT_EQ(aggregate_time_table(a, 1).rows.size(), 1u);
  const Table cls = mpi_class_table(a);
  ASSERT_EQ(cls.rows.size(), 3u);  // no one-sided or other time: no rows
  EXPECT_EQ(cls.rows[1], (std::vector<std::string>{"point-to-point", "1.500000", "7.50", "25.00"}));
  const auto text = render_run_report(two_ranks(), {});
  EXPECT_NE(text.find("Aggregate time"), std::string::npos);
  EXPECT_NE(text.find("MPI share of wall time (summed over ranks)"), std::string::npos);
  EXPECT_NE(text.find("30.00"), std::string::npos);  // 6 s of 20 s
}

TEST(MpiAggregate, CsvAndJsonCarryUnroundedValues) {
  const auto rec = two_ranks();
  const std::string csv = tidy_csv(rec, parse_csv_table("aggregate"));
  std::istringstream in(csv);
  std::string header, first;
  std::getline(in, header);
  std::getline(in, first);
  EXPECT_EQ(header, "call,class,count,seconds,app_pct,mpi_pct,bytes_sent,bytes_received,avg_bytes_sent");
  EXPECT_EQ(first, "MPI_Allreduce,collective,200,4,20," + fmt::format("{}", 400.0 / 6.0) + ",1600,0,8");
  const std::string summary = tidy_csv(rec, CsvTable::kSummary);
  EXPECT_NE(summary.find("\nmpi_pct_of_wall,30\n"), std::string::npos) << summary;
  EXPECT_NE(summary.find("\nio_rate_mbs,2\n"), std::string::npos) << summary;
  const auto j = record_report_json(rec)["derived"]["mpi_aggregate"];
  EXPECT_EQ(j["mpi_s"].get<double>(), 6.0);
  EXPECT_EQ(j["classes"]["collective"]["seconds"].get<double>(), 4.0);
  EXPECT_EQ(j["calls"][0]["call"], "MPI_Allreduce");
  EXPECT_EQ(j["calls"].size(), 4u);
}

// The page's MPI section carries the same three tables as the text, cell for cell.
TEST(MpiAggregate, ThePageShowsTheAggregateTables) {
  const auto rec = two_ranks();
  const auto page = run_page(rec, record::to_json(rec));
  const auto a = mpi_aggregate(scan_of(rec));
  std::map<std::string, nlohmann::json> tables;
  for (const auto& sec : page["sections"])
    for (const auto& t : sec.value("tables", nlohmann::json::array())) tables[t["title"]] = t;
  const Table want = aggregate_time_table(a, 0);
  ASSERT_TRUE(tables.count(want.title));
  EXPECT_EQ(tables[want.title]["rows"].get<std::vector<std::vector<std::string>>>(), want.rows);
  EXPECT_TRUE(tables.count(aggregate_sent_table(a, 0).title));
  EXPECT_TRUE(tables.count(mpi_class_table(a).title));
}

// Every MPI-time call of the preload's tables, classed as its category says.
TEST(MpiClass, AgreesWithTheCategoryOfEveryCallInThePreloadTables) {
  const std::map<std::string, MpiClass> by_category = {
      {"coll", MpiClass::kCollective}, {"icoll", MpiClass::kCollective}, {"p2p", MpiClass::kPointToPoint},
      {"wait", MpiClass::kCompletion}, {"rma", MpiClass::kOneSided},     {"rma_sync", MpiClass::kOneSided},
      {"comm", MpiClass::kOther},      {"other", MpiClass::kOther}};
  int checked = 0;
  for (const char* file : {"mpi_calls.tbl", "mpi4_calls.tbl"}) {
    std::ifstream in(std::string(HPCSENS_SOURCE_DIR) + "/preload/" + file);
    ASSERT_TRUE(in) << file;
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#' || line[0] == '@') continue;
      std::istringstream fields(line);
      std::string name, category;
      std::getline(fields, name, '|');
      std::getline(fields, category, '|');
      const auto trim = [](std::string s) {
        s.erase(0, s.find_first_not_of(' '));
        s.erase(s.find_last_not_of(' ') + 1);
        return s;
      };
      const auto it = by_category.find(trim(category));
      if (it == by_category.end()) continue;  // I/O calls: not MPI time
      EXPECT_EQ(mpi_class_name(mpi_class_of(trim(name))), mpi_class_name(it->second)) << trim(name);
      ++checked;
    }
  }
  EXPECT_GT(checked, 250);
  EXPECT_EQ(mpi_class_of("PMPI_Allreduce"), MpiClass::kCollective);
  EXPECT_EQ(mpi_class_of("MPI_Ialltoallv_c"), MpiClass::kCollective);
  EXPECT_EQ(mpi_class_of("not_mpi"), MpiClass::kOther);
}

}  // namespace
}  // namespace hpcsens::report

namespace hpcsens::report {
namespace {

// One site (no module, so no name: "?+0x0") on two ranks: 1 s and 3 s, so mean 2 s, population
// standard deviation 1 s, COV 0.5; 400 bytes in 8 calls, 50 bytes per call.
// mpiP's call-site time and message statistics: each call's extremes over all ranks, the mean per call.
TEST(CallSiteStatistics, EachCallsExtremesOverRanks) {
  std::vector<RankSite> sites(2);
  for (int r = 0; r < 2; ++r) sites[r].rank = r, sites[r].call = "MPI_Send", sites[r].has_extremes = true, sites[r].count = 4;
  sites[0].seconds = 0.4, sites[0].call_min_s = 0.05, sites[0].call_max_s = 0.2, sites[0].bytes = 40;
  sites[0].min_bytes = 4, sites[0].max_bytes = 16;
  sites[1].seconds = 1.2, sites[1].call_min_s = 0.1, sites[1].call_max_s = 0.5, sites[1].bytes = 400;
  sites[1].min_bytes = 8, sites[1].max_bytes = 256;
  const auto sums = summarize_sites(sites);
  ASSERT_EQ(sums.size(), 1u);
  // Field by field: the COV (0.4 / 0.8) is 0.5 to the last bit only in exact arithmetic.
  const std::string csv = callsite_stats_csv(sums, 16.0, 3.2);
  std::istringstream got(csv.substr(csv.find('\n') + 1)), want("?+0x0,MPI_Send,2,8,1.6,0.4,0,1.2,1,0.5,440,55,10,50,0.05,0.2,0.5,4,256");
  for (std::string g, w; std::getline(want, w, ',');) {
    ASSERT_TRUE(std::getline(got, g, ',')) << csv;
    if (w.find_first_not_of("0123456789.") != std::string::npos) EXPECT_EQ(g, w) << csv;
    else EXPECT_NEAR(std::stod(g), std::stod(w), 1e-12 * std::stod(w)) << csv;
  }
  const Table time = callsite_time_table(sums, 16.0, 3.2, 10);
  ASSERT_EQ(time.rows.size(), 3u);  // rank 0, rank 1, then '*' over both
  EXPECT_EQ(time.rows[2][2], "*");
  EXPECT_EQ(time.rows[2][4], "500.0000");  // max [ms]
  EXPECT_EQ(time.rows[2][5], "200.0000");  // mean [ms]: 1.6 s / 8 calls
  EXPECT_EQ(time.rows[2][6], "50.0000");   // min [ms]
  EXPECT_EQ(time.rows[1][4], "500.0000");  // rank 1's own max
  EXPECT_EQ(time.rows[0][4], "200.0000");  // rank 0's own max
  const Table bytes = callsite_bytes_table(sums, 10);
  ASSERT_EQ(bytes.rows.size(), 3u);
  EXPECT_EQ(bytes.rows[2][4], "256");
  EXPECT_EQ(bytes.rows[2][6], "4");
  EXPECT_EQ(bytes.rows[2][7], "440");
  EXPECT_EQ(bytes.rows[0][7], "40");  // rank 0 alone
  // A record from before the extremes: no row, since there is nothing true to show.
  sites[1].has_extremes = false;
  EXPECT_TRUE(callsite_time_table(summarize_sites(sites), 16.0, 3.2, 10).rows.empty());
}

TEST(CallSiteStatistics, CovOverRanksAndBytesPerCall) {
  std::vector<RankSite> sites(2);
  sites[0].rank = 0, sites[0].call = "MPI_Send", sites[0].count = 4, sites[0].bytes = 100, sites[0].seconds = 1.0;
  sites[1].rank = 1, sites[1].call = "MPI_Send", sites[1].count = 4, sites[1].bytes = 300, sites[1].seconds = 3.0;
  const auto sums = summarize_sites(sites);
  ASSERT_EQ(sums.size(), 1u);
  EXPECT_DOUBLE_EQ(sums[0].cov, 0.5);
  EXPECT_DOUBLE_EQ(sums[0].mean_bytes(), 50.0);
  const Table t = callsite_table(sums, 10);
  EXPECT_EQ(t.header[7], "COV");
  EXPECT_EQ(t.rows[0][7], "0.500");
  EXPECT_EQ(t.rows[0][9], "50.0");
  const auto j = callsite_json(sums, 20.0, 8.0);  // 4 s of 20 s wall and of 8 s MPI over ranks
  EXPECT_EQ(j[0]["cov"].get<double>(), 0.5);
  EXPECT_EQ(j[0]["app_pct"].get<double>(), 20.0);
  EXPECT_EQ(j[0]["mpi_pct"].get<double>(), 50.0);
  EXPECT_EQ(callsite_stats_csv(sums, 20.0, 8.0),
            "site,call,ranks,count,seconds,min_s,min_rank,max_s,max_rank,cov,bytes,mean_bytes,app_pct,mpi_pct,"
            "call_min_s,call_mean_s,call_max_s,min_bytes,max_bytes\n"
            "?+0x0,MPI_Send,2,8,4,1,0,3,1,0.5,400,50,20,50,,,,,\n");  // no module: site_label's "?+0x0"; no extremes
  EXPECT_EQ(j[0]["mean_bytes"].get<double>(), 50.0);
  sites.pop_back();  // one rank: no spread
  EXPECT_EQ(summarize_sites(sites)[0].cov, 0.0);
}

}  // namespace
}  // namespace hpcsens::report

namespace hpcsens::report {
namespace {

// mpiP's per-rank call-site rows from a fixture of single calls whose rank, site, duration and
// bytes are known: the record's entries are built from the calls (one rank's site split in two
// entries, as two call instructions of one line are), the expectations from the calls themselves.
struct KnownCall {
  int rank;
  const char* function;
  int line;
  double seconds;
  std::uint64_t bytes;
};
const KnownCall kKnownCalls[] = {
    {0, "solve", 10, 0.010, 100}, {0, "solve", 10, 0.030, 300}, {0, "halo", 20, 0.002, 8},
    {1, "solve", 10, 0.050, 100}, {1, "halo", 20, 0.004, 8},    {1, "halo", 20, 0.006, 16},
    {2, "solve", 10, 0.020, 200}, {2, "solve", 10, 0.020, 200}, {2, "solve", 10, 0.040, 400}};
const double kKnownWall[] = {2.0, 4.0, 5.0}, kKnownMpi[] = {0.5, 1.0, 0.25};

nlohmann::json known_calls_record_ranks() {
  nlohmann::json ranks = nlohmann::json::array();
  for (int r = 0; r < 3; ++r) {
    nlohmann::json sites = nlohmann::json::array();
    int entry = 0;
    for (const KnownCall& c : kKnownCalls) {
      if (c.rank != r) continue;
      // Rank 2's solve calls land in one entry each (several addresses of one line).
      nlohmann::json* e = nullptr;
      for (auto& s : sites)
        if (s["function"] == c.function && r != 2) e = &s;
      if (e == nullptr) {
        sites.push_back({{"call", "MPI_Send"}, {"count", 0}, {"seconds", 0.0}, {"bytes", 0}, {"function", c.function},
                         {"file", "app.c"}, {"line", c.line}, {"min_seconds", c.seconds}, {"max_seconds", c.seconds},
                         {"min_bytes", c.bytes}, {"max_bytes", c.bytes}, {"offset", 0x100 + entry++}});
        e = &sites.back();
      }
      (*e)["count"] = (*e)["count"].get<int>() + 1;
      (*e)["seconds"] = (*e)["seconds"].get<double>() + c.seconds;
      (*e)["bytes"] = (*e)["bytes"].get<std::uint64_t>() + c.bytes;
      (*e)["min_seconds"] = std::min((*e)["min_seconds"].get<double>(), c.seconds);
      (*e)["max_seconds"] = std::max((*e)["max_seconds"].get<double>(), c.seconds);
      (*e)["min_bytes"] = std::min((*e)["min_bytes"].get<std::uint64_t>(), c.bytes);
      (*e)["max_bytes"] = std::max((*e)["max_bytes"].get<std::uint64_t>(), c.bytes);
    }
    ranks.push_back({{"rank", r}, {"wall_s", kKnownWall[r]}, {"mpi_s", kKnownMpi[r]}, {"callsites", sites}});
  }
  return ranks;
}

struct Expected {
  int count = 0;
  double seconds = 0, min_s = 1e9, max_s = 0;
  std::uint64_t bytes = 0, min_b = ~0ull, max_b = 0;
};
// rank -1: '*', every rank.
Expected expected_of(const std::string& function, int rank) {
  Expected e;
  for (const KnownCall& c : kKnownCalls) {
    if (c.function != function || (rank >= 0 && c.rank != rank)) continue;
    ++e.count, e.seconds += c.seconds, e.bytes += c.bytes;
    e.min_s = std::min(e.min_s, c.seconds), e.max_s = std::max(e.max_s, c.seconds);
    e.min_b = std::min(e.min_b, c.bytes), e.max_b = std::max(e.max_b, c.bytes);
  }
  return e;
}

TEST(CallSiteStatistics, PerRankRowsThenAllRanksAsMpiPHasThem) {
  const nlohmann::json ranks = known_calls_record_ranks();
  const auto [wall, mpi] = sum_wall_and_mpi(ranks);
  const auto sums = summarize_sites(callsites_of(ranks, "known.json"));
  ASSERT_EQ(sums.size(), 2u);
  // JSON: derived.callsites[].per_rank, one per rank that called the site.
  const nlohmann::json j = callsite_json(sums, wall, mpi);
  for (const nlohmann::json& site : j) {
    const std::string function = site["site"].get<std::string>().substr(0, site["site"].get<std::string>().find(' '));
    int rows = 0;
    for (int r = 0; r < 3; ++r) {
      const Expected e = expected_of(function, r);
      const nlohmann::json* row = nullptr;
      for (const auto& x : site["per_rank"])
        if (x["rank"] == r) row = &x;
      if (e.count == 0) {
        EXPECT_EQ(row, nullptr) << function << " rank " << r;
        continue;
      }
      ++rows;
      ASSERT_NE(row, nullptr) << site.dump(1);
      EXPECT_EQ((*row)["count"], e.count) << function << r;
      EXPECT_NEAR((*row)["seconds"].get<double>(), e.seconds, 1e-12);
      EXPECT_EQ((*row)["bytes"], e.bytes);
      EXPECT_NEAR((*row)["call_min_s"].get<double>(), e.min_s, 1e-12);
      EXPECT_NEAR((*row)["call_max_s"].get<double>(), e.max_s, 1e-12);
      EXPECT_NEAR((*row)["call_mean_s"].get<double>(), e.seconds / e.count, 1e-12);
      EXPECT_EQ((*row)["min_bytes"], e.min_b);
      EXPECT_EQ((*row)["max_bytes"], e.max_b);
      EXPECT_NEAR((*row)["app_pct"].get<double>(), 100 * e.seconds / kKnownWall[r], 1e-9);
      EXPECT_NEAR((*row)["mpi_pct"].get<double>(), 100 * e.seconds / kKnownMpi[r], 1e-9);
    }
    EXPECT_EQ(static_cast<int>(site["per_rank"].size()), rows);
    EXPECT_EQ(site["count"], expected_of(function, -1).count);
  }
  // Text: per site its ranks in order, then '*' (App% of all ranks' wall time, 11 s).
  const Table time = callsite_time_table(sums, wall, mpi, 10);
  ASSERT_EQ(time.header[2], "rank");
  std::vector<std::string> order;
  for (const auto& row : time.rows) order.push_back(row[0].substr(0, row[0].find(' ')) + ":" + row[2]);
  EXPECT_EQ(order, (std::vector<std::string>{"solve:0", "solve:1", "solve:2", "solve:*", "halo:0", "halo:1", "halo:*"}));
  EXPECT_EQ(time.rows[2][3], "3");                                                  // rank 2 solve: 3 calls
  EXPECT_EQ(time.rows[2][5], fmt::format("{:.4f}", 1e3 * 0.08 / 3));                // mean [ms]
  EXPECT_EQ(time.rows[2][7], fmt::format("{:.2f}", 100 * 0.08 / 5.0));              // App% of rank 2's 5 s
  EXPECT_EQ(time.rows[3][4], "50.0000");                                            // '*' max [ms]
  EXPECT_EQ(time.rows[3][7], fmt::format("{:.2f}", 100 * expected_of("solve", -1).seconds / 11.0));
  const Table bytes = callsite_bytes_table(sums, 10);
  ASSERT_EQ(bytes.rows.size(), 7u);
  EXPECT_EQ(bytes.rows[5][2], "1");
  EXPECT_EQ(bytes.rows[5][7], "24");  // halo on rank 1: 8 + 16 B
  // CSV: one row per site and rank, the same numbers unrounded.
  const std::string csv = callsite_ranks_csv(sums);
  std::istringstream lines(csv);
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line, "site,call,rank,count,seconds,bytes,mean_bytes,app_pct,mpi_pct,call_min_s,call_mean_s,call_max_s,"
                  "min_bytes,max_bytes");
  int csv_rows = 0;
  while (std::getline(lines, line)) {
    ++csv_rows;
    std::vector<std::string> f;
    std::istringstream cells(line + ",");
    for (std::string c; std::getline(cells, c, ',');) f.push_back(c);
    ASSERT_EQ(f.size(), 14u) << line;
    const Expected e = expected_of(f[0].substr(0, f[0].find(' ')), std::stoi(f[2]));
    EXPECT_EQ(std::stoi(f[3]), e.count) << line;
    EXPECT_NEAR(std::stod(f[4]), e.seconds, 1e-12) << line;
    EXPECT_EQ(std::stoull(f[5]), e.bytes) << line;
    EXPECT_NEAR(std::stod(f[8]), 100 * e.seconds / kKnownMpi[std::stoi(f[2])], 1e-9) << line;
    EXPECT_EQ(std::stoull(f[13]), e.max_b) << line;
  }
  EXPECT_EQ(csv_rows, 5);
}

}  // namespace
}  // namespace hpcsens::report
