// Issue 11 acceptance under a real mpirun: exact counts and bytes of C stdio, Fortran I/O
// (counted once), the added MPI calls, non-blocking receives sized at completion, ring partners,
// message-size histograms, MPI_Pcontrol phases and named regions (C and Fortran), and the same
// programs running without hpcsens through the region stub library.
#include <filesystem>
#include <string>

#include "tests/preload/mpirun_fixture.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using hpcsens::test::u;
class MeasureMpirun : public hpcsens::test::MpirunFixture {};

TEST_F(MeasureMpirun, CProgramStdioPartnersReceivesCallsAndRegions) {
  ASSERT_EQ(mpirun(4, PROG_MEASURE_C), 0) << log();
  const json rec = record();
  EXPECT_EQ(rec.at("schema_minor"), 2);
  ASSERT_EQ(rec.at("ranks").size(), 4u);
  // The unmatched region end of each rank, said once.
  EXPECT_EQ(rec.at("preload").at("drops").at("region_errors"), 4) << rec.at("preload");
  const std::string l = log();
  EXPECT_EQ(l.find("dropped"), l.rfind("dropped")) << l;
  for (const json& r : rec.at("ranks")) {
    const int rank = r.at("rank");
    SCOPED_TRACE("rank " + std::to_string(rank));
    const json& io = r.at("io");
    EXPECT_EQ(u(io, "stdio", "bytes"), 12u + 1000 + 4 + 1 + 12 + 1000);
    EXPECT_EQ(u(io, "stdio", "calls"), 10u);  // 2 fopen, 2 fclose, 6 transfers
    EXPECT_FALSE(io.contains("posix")) << io;  // stdio's own writes are not counted twice
    const json& calls = r.at("io_calls");
    for (const char* c : {"fprintf", "fwrite", "fputs", "fputc", "fgets", "fread"})
      EXPECT_EQ(u(calls, c, "count"), 1u) << c;
    EXPECT_EQ(u(calls, "fprintf", "bytes"), 12u);
    EXPECT_EQ(u(calls, "fwrite", "bytes"), 1000u);
    EXPECT_EQ(u(calls, "fgets", "bytes"), 12u);
    const json& mpi = r.at("mpi_calls");
    for (const char* c : {"MPI_Dims_create", "MPI_Cart_create", "MPI_Cart_sub", "MPI_Cart_coords",
                          "MPI_Comm_create_group", "MPI_Comm_idup", "MPI_Intercomm_create",
                          "MPI_Intercomm_merge", "MPI_Dist_graph_create_adjacent",
                          "MPI_Comm_rank", "MPI_Comm_size", "MPI_Comm_group", "MPI_Group_free"})
      EXPECT_EQ(u(mpi, c, "count"), 1u) << c;
    EXPECT_EQ(u(mpi, "MPI_Comm_free", "count"), 8u);
    // Receives: what arrived, not the 100000 / 4000 bytes posted.
    EXPECT_EQ(u(mpi, "MPI_Irecv", "count"), 4u);
    EXPECT_EQ(u(mpi, "MPI_Irecv", "bytes"), 5000u + 40 + 80 + 24);
    EXPECT_EQ(u(mpi, "MPI_Send", "bytes"), 3000u + 40 + 80 + 24);
    const json& sizes = r.at("msg_sizes");
    EXPECT_EQ(sizes.at("MPI_Send"), json({0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 3}));
    EXPECT_EQ(sizes.at("MPI_Irecv"), json({0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 1}));
    EXPECT_EQ(sizes.at("MPI_Isend"), json({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}));
    const json want = json::array({{{"rank", (rank + 1) % 4}, {"bytes", 3144}, {"messages", 6}},
                                   {{"rank", (rank + 2) % 4}, {"bytes", 5000}, {"messages", 1}}});
    json got = r.at("partners");
    std::sort(got.begin(), got.end(), [](const json& a, const json& b) { return a["rank"] < b["rank"]; });
    json sorted_want = want;
    std::sort(sorted_want.begin(), sorted_want.end(),
              [](const json& a, const json& b) { return a["rank"] < b["rank"]; });
    EXPECT_EQ(got, sorted_want);
    EXPECT_EQ(r.at("partners").at(0).at("bytes"), 5000);  // sorted by bytes
    EXPECT_EQ(r.at("partners_other"), json({{"ranks", 0}, {"bytes", 0}, {"messages", 0}}));
    const json& reg = r.at("regions");
    EXPECT_EQ(reg.at("setup").at("count"), 1);
    EXPECT_EQ(reg.at("solve").at("count"), 2);
    EXPECT_EQ(reg.at("output").at("count"), 1);
    EXPECT_EQ(reg.at("pcontrol:1").at("count"), 1);
    EXPECT_EQ(reg.at("pcontrol:0").at("count"), 1);
    EXPECT_GT(reg.at("solve").at("mpi_s").get<double>(), 0.0);
    EXPECT_LE(reg.at("solve").at("mpi_s").get<double>(), reg.at("solve").at("wall_s").get<double>());
    EXPECT_EQ(reg.at("output").at("mpi_s").get<double>(), 0.0);
    EXPECT_GT(reg.at("output").at("io_s").get<double>(), 0.0);
    EXPECT_GT(reg.at("setup").at("mpi_s").get<double>(), 0.0);
    // One thread: the MPI_Init thread's MPI time is all of it.
    EXPECT_NEAR(r.at("mpi_s_main_thread").get<double>(), r.at("mpi_s").get<double>(), 1e-6);
  }
}

TEST_F(MeasureMpirun, FortranIoCountedOnceAsPosixWithPhasesAndRegions) {
  ASSERT_EQ(mpirun(2, PROG_MEASURE_F), 0) << log();
  const json rec = record();
  ASSERT_EQ(rec.at("ranks").size(), 2u);
  for (const json& r : rec.at("ranks")) {
    const json& io = r.at("io");
    EXPECT_FALSE(io.contains("stdio")) << io;
    EXPECT_EQ(u(io, "posix", "bytes"), 18u + 808);
    EXPECT_EQ(r.at("io_bytes_written"), 18 + 808);
    EXPECT_EQ(r.at("regions").at("fortran-io").at("count"), 1);
    EXPECT_GT(r.at("regions").at("fortran-io").at("io_s").get<double>(), 0.0);
    EXPECT_EQ(r.at("regions").at("pcontrol:1").at("count"), 1);
    EXPECT_GT(r.at("regions").at("pcontrol:1").at("mpi_s").get<double>(), 0.0);  // the barrier
  }
}

TEST_F(MeasureMpirun, ProgramsRunWithoutHpcsensThroughTheRegionStub) {
  EXPECT_EQ(mpirun(4, PROG_MEASURE_C, /*preload=*/false), 0) << log();
  EXPECT_EQ(mpirun(2, PROG_MEASURE_F, /*preload=*/false), 0) << log();
  EXPECT_EQ(run_file(dir_, "m1", ".json"), "");
}

// Item 7: a rank over the byte budget drops its largest parts and says so; the record stays valid.
TEST_F(MeasureMpirun, RanksOverTheByteBudgetAreTruncatedAndCounted) {
  ASSERT_EQ(mpirun(4, PROG_MEASURE_C, true, "-x HPCSENS_RANK_BYTES=2048"), 0) << log();
  const json rec = record();
  EXPECT_EQ(rec.at("preload").at("drops").at("truncated_ranks"), 4);
  for (const json& r : rec.at("ranks")) {
    EXPECT_EQ(r.at("truncated"), true);
    EXPECT_LE(r.dump().size(), 2048u);
    EXPECT_FALSE(r.contains("partners"));
    EXPECT_EQ(r.at("wall_s").is_number(), true);
  }
}

// Issue 10 item 5: when rank 0 cannot create the record, every rank learns it before the
// gather: the job ends promptly with its status, one warning per failure, no hang.
TEST_F(MeasureMpirun, UnwritableOutputNeitherHangsNorChangesTheExitStatus) {
  ASSERT_EQ(mpirun(4, PROG_MEASURE_C, true, "", "/dev/null/nodir"), 0) << log();
  EXPECT_NE(log().find("cannot write the run record"), std::string::npos) << log();
}

// Item 8: a PMPI tool preloaded before and after hpcsens; each counts every call once.
TEST_F(MeasureMpirun, AnotherPmpiToolSeesItsCallsInBothOrders) {
  const std::string hpcsens = HPCSENS_PRELOAD_LIB, other = OTHER_TOOL;
  for (const std::string& order : {hpcsens + ":" + other, other + ":" + hpcsens}) {
    SCOPED_TRACE(order);
    if (const auto old = run_file(dir_, "m1", ".json"); !old.empty()) fs::remove(old);
    ASSERT_EQ(sh(std::string(HPCSENS_MPIRUN) + " -np 2 --oversubscribe -x LD_PRELOAD=" + order +
                 " -x HPCSENS_OUT=" + dir_ + " -x HPCSENS_RUN_ID=m1 " + PROG_COEXIST),
              0)
        << log();
    const std::string l = log();
    EXPECT_NE(l.find("other-tool rank 0: MPI_Send 5 MPI_Barrier 3"), std::string::npos) << l;
    EXPECT_NE(l.find("other-tool rank 1: MPI_Send 0 MPI_Barrier 3"), std::string::npos) << l;
    const json rec = record();
    const json& r0 = rec.at("ranks").at(0).at("mpi_calls");
    EXPECT_EQ(u(r0, "MPI_Send", "count"), 5u);
    EXPECT_EQ(u(r0, "MPI_Barrier", "count"), 3u);
    EXPECT_EQ(u(rec.at("ranks").at(1).at("mpi_calls"), "MPI_Recv", "count"), 5u);
    EXPECT_EQ(rec.at("ranks").at(0).at("partners").at(0).at("messages"), 5);
  }
}

}  // namespace
