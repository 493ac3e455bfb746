// Issue 33: mpiP's aggregate tables from a real 3-rank MPI job run under `hpcsens run`: each
// call's totals in `report --format csv --table aggregate` equal the sums of the record's
// per-rank values, App% adds up to the MPI share of summed wall time and MPI% to 100 %.
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "run_fixture.h"

namespace hpcsens::testing {
namespace {

using nlohmann::json;

class MpiAggregateRun : public HpcsensRunTest {};

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> cells;
  std::istringstream in(line);
  for (std::string c; std::getline(in, c, ',');) cells.push_back(c);
  return cells;
}

TEST_F(MpiAggregateRun, AggregateTableTotalsAreTheSumsOfTheRanks) {
  // Sendrecv, Isend/Irecv/Waitall and Allreduce on every rank (examples/net_pattern.c), 3 ranks.
  const std::string prog = std::string(HPCSENS_EXAMPLES_DIR) + "/example_net_pattern";
  const auto r = wrap({"mpirun", "-np", "3", "--oversubscribe", prog, "40", "4096", "50"});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const json rec = record(r);
  const std::string path = record_path(r);
  ASSERT_EQ(rec.at("ranks").size(), 3u);

  struct Sum { std::uint64_t count = 0, bytes = 0; double seconds = 0; };
  std::map<std::string, Sum> want;
  double wall = 0, mpi = 0;
  for (const auto& rank : rec.at("ranks")) {
    wall += rank.at("wall_s").get<double>();
    mpi += rank.at("mpi_s").get<double>();
    for (const auto& [name, c] : rank.at("mpi_calls").items()) {
      Sum& s = want[name];
      s.count += c.at("count").get<std::uint64_t>();
      s.seconds += c.at("seconds").get<double>();
      // A receive's bytes arrived; every other call's bytes were sent or contributed.
      if (name != "MPI_Irecv" && name != "MPI_Recv") s.bytes += c.at("bytes").get<std::uint64_t>();
    }
  }
  for (const char* call : {"MPI_Sendrecv", "MPI_Isend", "MPI_Irecv", "MPI_Waitall", "MPI_Allreduce"})
    ASSERT_TRUE(want.count(call)) << call;

  const auto csv = run_process({HPCSENS_BIN, "report", path, "--format", "csv", "--table", "aggregate"}, kTimeout);
  ASSERT_EQ(csv.exit_status, 0) << csv.err;
  std::istringstream in(csv.out);
  std::string line;
  std::getline(in, line);
  ASSERT_EQ(line, "call,class,count,seconds,app_pct,mpi_pct,bytes_sent,bytes_received,avg_bytes_sent");
  double app_pct = 0, mpi_pct = 0;
  std::size_t rows = 0;
  std::map<std::string, std::string> classes;
  while (std::getline(in, line)) {
    const auto c = split(line);
    ASSERT_EQ(c.size(), 9u) << line;
    ASSERT_TRUE(want.count(c[0])) << line;
    const Sum& s = want[c[0]];
    EXPECT_EQ(std::stoull(c[2]), s.count) << c[0];
    EXPECT_NEAR(std::stod(c[3]), s.seconds, 1e-12 * (1 + s.seconds)) << c[0];
    EXPECT_EQ(std::stoull(c[6]), s.bytes) << c[0];
    EXPECT_NEAR(std::stod(c[4]), 100 * s.seconds / wall, 1e-9) << c[0];
    app_pct += std::stod(c[4]);
    mpi_pct += std::stod(c[5]);
    classes[c[0]] = c[1];
    ++rows;
  }
  EXPECT_EQ(rows, want.size());
  EXPECT_NEAR(mpi_pct, 100.0, 1e-9);
  EXPECT_NEAR(app_pct, 100 * mpi / wall, 1e-6);  // the preload's mpi_s is the sum of its calls
  EXPECT_EQ(classes["MPI_Allreduce"], "collective");
  EXPECT_EQ(classes["MPI_Sendrecv"], "point-to-point");
  EXPECT_EQ(classes["MPI_Waitall"], "completion");

  const auto js = run_process({HPCSENS_BIN, "report", path, "--format", "json"}, kTimeout);
  ASSERT_EQ(js.exit_status, 0) << js.err;
  const json agg = json::parse(js.out).at("derived").at("mpi_aggregate");
  EXPECT_NEAR(agg.at("mpi_s").get<double>(), mpi, 1e-12);
  EXPECT_NEAR(agg.at("wall_s").get<double>(), wall, 1e-12);
  EXPECT_NEAR(agg.at("mpi_pct_of_wall").get<double>(), 100 * mpi / wall, 1e-9);
  const auto& cls = agg.at("classes");
  EXPECT_NEAR(cls.at("collective").at("seconds").get<double>(), want["MPI_Allreduce"].seconds, 1e-12);
  EXPECT_NEAR(cls.at("point-to-point").at("seconds").get<double>(),
              want["MPI_Sendrecv"].seconds + want["MPI_Isend"].seconds + want["MPI_Irecv"].seconds, 1e-12);

  const auto text = run_process({HPCSENS_BIN, "report", path}, kTimeout);
  ASSERT_EQ(text.exit_status, 0) << text.err;
  EXPECT_NE(text.out.find("Aggregate time: MPI time per call"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("Aggregate sent message size"), std::string::npos);
  EXPECT_NE(text.out.find("MPI share of wall time (summed over ranks)"), std::string::npos);
}

}  // namespace
}  // namespace hpcsens::testing
