#include "report/run_report.h"

#include <gtest/gtest.h>

#include <string>

#include "common/errors.h"
#include "mpi/imbalance.h"
#include "mpi/timing_bounds.h"

namespace hpcsens::report {
namespace {

using record::RankRecord;
using record::RunRecord;

RankRecord rank(int r, double wall, double mpi, double io, bool complete = true) {
  RankRecord k;
  k.rank = r;
  k.host = "node" + std::to_string(r / 2);
  k.t0 = 0;
  k.t1 = 0.01;
  k.t2 = 0.01 + wall;
  k.t3 = 0.02 + wall;
  k.wall_s = wall;
  k.mpi_s = mpi;
  k.io_s = io;
  k.compute_s = wall - mpi - io;
  k.complete = complete;
  k.mpi_calls["MPI_Barrier"] = {2, mpi * 0.75, 0};
  k.mpi_calls["MPI_Allreduce"] = {10, mpi * 0.25, 80};
  return k;
}

RunRecord four_ranks() {
  RunRecord rec;
  rec.job.command = {"mpirun", "-np", "4", "./app"};
  rec.job.nranks = 4;
  rec.job.launcher = "openmpi";
  rec.job.hosts = {"node0", "node1"};
  // compute = 1, 2, 3, 6 (rank 3 is the designed slow one)
  rec.ranks = {rank(0, 7, 6, 0), rank(1, 7, 5, 0), rank(2, 7, 4, 0), rank(3, 7, 1, 0)};
  mpi::fill_timing(rec);
  mpi::fill_imbalance(rec);
  return rec;
}

TEST(Distribution, QuartilesInterpolate) {
  const auto d = distribution_of({4, 1, 3, 2, 5});
  EXPECT_DOUBLE_EQ(d.min, 1);
  EXPECT_DOUBLE_EQ(d.q1, 2);
  EXPECT_DOUBLE_EQ(d.median, 3);
  EXPECT_DOUBLE_EQ(d.q3, 4);
  EXPECT_DOUBLE_EQ(d.max, 5);
  const auto e = distribution_of({1, 2, 3, 4});
  EXPECT_DOUBLE_EQ(e.median, 2.5);
  EXPECT_DOUBLE_EQ(e.q1, 1.75);
  EXPECT_DOUBLE_EQ(distribution_of({}).max, 0.0);
}

TEST(TopCalls, OrderedBySecondsWithCounts) {
  const auto r = rank(0, 7, 4, 0);
  EXPECT_EQ(top_calls(r, 3), "MPI_Barrier 3.000 s x2; MPI_Allreduce 1.000 s x10");
  EXPECT_EQ(top_calls(r, 1), "MPI_Barrier 3.000 s x2");
}

TEST(RankTable, OneRowPerRankWithUnitsAndMpiPercent) {
  const auto rec = four_ranks();
  const auto t = rank_table(rec, {3, 0}, "Ranks");
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.header[2], "wall [s]");
  EXPECT_EQ(t.rows[0][0], "3");
  EXPECT_EQ(t.rows[0][3], "6.0000");                 // compute
  EXPECT_EQ(t.rows[0][6], fixed(100.0 / 7.0, 1));    // MPI %
  EXPECT_EQ(t.rows[1][6], fixed(600.0 / 7.0, 1));
}

TEST(Summary, ShowsBothBoundsImbalanceAndSlowest) {
  const auto rec = four_ranks();
  const std::string text = render(summary_table(rec), Format::kTable);
  EXPECT_NE(text.find("min over ranks of t3-t0"), std::string::npos) << text;
  EXPECT_NE(text.find("load-balance efficiency"), std::string::npos);
  // LBE = mean 3 / max 6
  EXPECT_NE(text.find("0.500"), std::string::npos);
  // max/mean = 2
  EXPECT_NE(text.find("2.000"), std::string::npos);
  const auto t = summary_table(rec);
  bool found = false;
  for (const auto& row : t.rows)
    if (row[0].rfind("slowest ranks", 0) == 0) {
      found = true;
      EXPECT_EQ(row[1].substr(0, 1), "3");
    }
  EXPECT_TRUE(found);
  // Two hosts: clocks are not comparable, so the one-clock bound is absent.
  EXPECT_NE(text.find("clocks not comparable"), std::string::npos);
}

TEST(Summary, TotalsIoOverRanks) {
  auto rec = four_ranks();
  rec.ranks[0].io_bytes_written = 1000;
  rec.ranks[2].io_bytes_written = 24;
  rec.ranks[3].io_bytes_read = 7;
  rec.ranks[1].io_s = 0.5;
  rec.ranks[2].io_s = 0.25;
  const auto t = summary_table(rec);
  int seen = 0;
  for (const auto& row : t.rows) {
    if (row[0] == "I/O bytes read / written, all ranks") {
      EXPECT_EQ(row[1], "7 B / 1.00 KiB");
      ++seen;
    }
    if (row[0] == "I/O time, all ranks") {
      EXPECT_EQ(row[1], "0.750000");
      ++seen;
    }
  }
  EXPECT_EQ(seen, 2);
}

TEST(Summary, ComputesImbalanceWhenRecordLacksIt) {
  auto rec = four_ranks();
  rec.imbalance = {};
  const auto t = summary_table(rec);
  bool found = false;
  for (const auto& row : t.rows)
    if (row[0] == "load-balance efficiency (mean/max)") {
      found = true;
      EXPECT_EQ(row[1], "0.500");
    }
  EXPECT_TRUE(found);
}

TEST(Summary, ListsIncompleteRanks) {
  auto rec = four_ranks();
  rec.ranks[2].complete = false;
  rec.complete = false;
  const std::string text = render_run_report(rec, {});
  EXPECT_NE(text.find("NO (some ranks did not reach MPI_Finalize)"), std::string::npos);
  EXPECT_NE(text.find("2*"), std::string::npos);
  const auto t = summary_table(rec);
  for (const auto& row : t.rows) {
    if (row[0].rfind("incomplete ranks", 0) == 0) {
      EXPECT_EQ(row[1], "2");
    }
  }
}

TEST(MpiCallTable, SumsOverRanksWithMaxRankAndShare) {
  auto rec = four_ranks();
  // mpi_s = 6, 5, 4, 1: Barrier gets 3/4 of each, Allreduce 1/4; 10 Allreduce calls of 80 bytes.
  const auto t = mpi_call_table(rec, 0);
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[0][0], "MPI_Barrier");
  EXPECT_EQ(t.rows[0][1], "8");                // 2 calls x 4 ranks
  EXPECT_EQ(t.rows[0][2], "12.0000");          // 0.75 x 16 s
  EXPECT_EQ(t.rows[0][3], "3.0000");           // per rank
  EXPECT_EQ(t.rows[0][4], "4.5000");           // rank 0: 0.75 x 6
  EXPECT_EQ(t.rows[0][5], "0");
  EXPECT_EQ(t.rows[0][8], "75.0");          // share of MPI, after bytes sent and bytes received
  EXPECT_EQ(t.rows[1][0], "MPI_Allreduce");
  EXPECT_EQ(t.rows[1][6], "320");          // bytes sent
  EXPECT_EQ(t.rows[1][7], "0");            // bytes received: none recorded for this call
  EXPECT_EQ(mpi_call_table(rec, 1).rows.size(), 1u);
  EXPECT_NE(mpi_call_table(rec, 1).title.find("1 of 2 calls"), std::string::npos);
}

TEST(Report, SmallJobListsEveryRank) {
  const std::string text = render_run_report(four_ranks(), {});
  EXPECT_NE(text.find("Ranks"), std::string::npos);
  EXPECT_EQ(text.find("Slowest"), std::string::npos);
  EXPECT_NE(text.find("MPI [%]"), std::string::npos);
}

// Collective bytes per rank beside point-to-point sent and received (issue 20): a Sendrecv is
// both directions once, a receive received, a collective what this rank contributed.
TEST(Report, BytesPerRankSplitPointToPointFromCollectives) {
  RunRecord rec = four_ranks();
  rec.ranks[1].mpi_calls["MPI_Sendrecv"] = {4, 0.1, 4096, 2048};
  rec.ranks[1].mpi_calls["MPI_Recv"] = {1, 0.1, 512, 0};
  rec.ranks[1].mpi_calls["MPI_Send"] = {1, 0.1, 100, 0};
  ReportOptions csv;
  csv.format = Format::kCsv;
  const std::string out = render_run_report(rec, csv);
  EXPECT_NE(out.find("rank,p2p sent,p2p received,collective bytes\n0,0,0,80\n1,4196,2560,80\n2,0,0,80\n3,0,0,80\n"),
            std::string::npos)
      << out;
  EXPECT_NE(render_run_report(rec, {}).find("    1  4.10 KiB      2.50 KiB              80 B"), std::string::npos) << render_run_report(rec, {});
}

TEST(Report, LargeJobSummarisesUnlessAll) {
  RunRecord rec;
  rec.job.nranks = 1000;
  for (int r = 0; r < 1000; ++r) rec.ranks.push_back(rank(r, 10, 9.0 - r * 0.008, 0));
  mpi::fill_timing(rec);
  mpi::fill_imbalance(rec);
  const std::string text = render_run_report(rec, {});
  EXPECT_NE(text.find("Slowest 5 ranks"), std::string::npos);
  EXPECT_NE(text.find("Fastest 5 ranks"), std::string::npos);
  EXPECT_NE(text.find("Distribution over 1000 ranks"), std::string::npos);
  EXPECT_LT(text.size(), 8000u);
  EXPECT_EQ(slowest_ranks(rec, 2), (std::vector<std::size_t>{999, 998}));
  EXPECT_EQ(fastest_ranks(rec, 2), (std::vector<std::size_t>{0, 1}));
  ReportOptions all;
  all.all_ranks = true;
  all.format = Format::kCsv;
  const std::string csv = render_run_report(rec, all);
  // every rank appears as a CSV row starting with its number
  EXPECT_NE(csv.find("\n999,node499,"), std::string::npos);
  EXPECT_NE(csv.find("\n0,node0,"), std::string::npos);
}

TEST(Report, EmulatedRecordsAreLabelled) {
  auto rec = four_ranks();
  rec.emulated = true;
  EXPECT_NE(render_run_report(rec, {}).find("EMULATED"), std::string::npos);
}

TEST(Report, ConfigIsShown) {
  auto rec = four_ranks();
  rec.config = {{"cpu_ghz", 2.1}, {"label", "base"}};
  const std::string text = render_run_report(rec, {});
  EXPECT_NE(text.find("config.cpu_ghz"), std::string::npos);
  EXPECT_NE(text.find("base"), std::string::npos);
}

// A run under the network-delay knob says so beside the job, so its MPI times are not taken
// for the machine's network.
TEST(Report, NetworkDelayKnobIsShownWithTheJob) {
  auto rec = four_ranks();
  EXPECT_EQ(render_run_report(rec, {}).find("network delay"), std::string::npos);
  rec.extra["preload"]["net_delay"] = {{"applied", true}, {"added_latency_us", 2.0}, {"added_ns_per_byte", 0.1},
                                       {"added_bandwidth_gbs", 10.0}, {"achieved_factor", 1.0123},
                                       {"scope", "messages between nodes (the job spans several)"}};
  ReportOptions csv;
  csv.format = Format::kCsv;  // unwrapped
  const std::string text = render_run_report(rec, csv);
  EXPECT_NE(text.find("ADDED by the knob, inside every MPI time below: +2 us per message, +0.1 ns per byte (a 10 "
                      "GB/s link); messages between nodes"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("achieved 1.012 x requested"), std::string::npos) << text;
  rec.extra["preload"]["net_delay"] = {{"applied", false}, {"error", "HPCSENS_NET_LATENCY_US='-3' is not 0 or a number"}};
  EXPECT_NE(render_run_report(rec, csv).find("off (unusable setting: HPCSENS_NET_LATENCY_US='-3'"), std::string::npos);
}

TEST(Table, TextAlignsNumbersRight) {
  Table t{"T", {"name", "value [s]"}, {{"a", "1.5"}, {"longer", "10.25"}}, {false, true}};
  EXPECT_EQ(render(t, Format::kTable),
            "T\n"
            " name    value [s]\n"
            " -----------------\n"
            " a             1.5\n"
            " longer      10.25\n\n");
}

TEST(Table, CsvQuotesAndMarkdownEscapes) {
  Table t{"T", {"a", "b"}, {{"x,y", "say \"hi\""}, {"p|q", "2"}}, {false, true}};
  EXPECT_EQ(render(t, Format::kCsv), "# T\na,b\n\"x,y\",\"say \"\"hi\"\"\"\np|q,2\n\n");
  EXPECT_EQ(render(t, Format::kMarkdown),
            "### T\n\n| a | b |\n|---|---:|\n| x,y | say \"hi\" |\n| p\\|q | 2 |\n\n");
}

// A host name edited to hold an escape sequence or a newline must not break the table or
// drive the terminal.
TEST(Table, ControlCharactersArePrintedAsQuestionMarks) {
  Table t{"T", {"host", "n"}, {{"evil\x1b[2J\nhost", "1"}}, {false, true}};
  for (auto f : {Format::kTable, Format::kCsv, Format::kMarkdown}) {
    const std::string out = render(t, f);
    EXPECT_EQ(out.find('\x1b'), std::string::npos);
    EXPECT_NE(out.find("evil?[2J?host"), std::string::npos) << out;
  }
}

TEST(Table, FormatNames) {
  EXPECT_EQ(parse_format("table"), Format::kTable);
  EXPECT_EQ(parse_format("csv"), Format::kCsv);
  EXPECT_EQ(parse_format("md"), Format::kMarkdown);
  EXPECT_THROW(parse_format("html"), InputError);
  EXPECT_EQ(fixed(1.0 / 0.0, 2), "-");
}

}  // namespace
}  // namespace hpcsens::report
