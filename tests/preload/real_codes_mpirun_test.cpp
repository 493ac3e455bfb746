// Real codes measured right (issue 20): MPI loaded with RTLD_LOCAL (mpi4py, and a C "binding"
// opened the way Python opens mpi4py, under Open MPI and MPICH), C++ iostream I/O counted once
// with exact bytes, and /dev/null, /proc and pipes not counted as file I/O.
#include <string>

#include "tests/preload/mpirun_fixture.h"

using nlohmann::json;
using hpcsens::test::u;

namespace {

class RealCodes : public hpcsens::test::MpirunFixture {
 protected:
  // Every rank's record entry, checked to be a complete two-rank record with no fatal message.
  json two_ranks(const std::string& run_log) {
    EXPECT_EQ(run_log.find("fatal"), std::string::npos) << run_log;
    const json rec = record();
    EXPECT_EQ(rec.at("job").at("nranks"), 2);
    EXPECT_EQ(rec.at("complete"), true);
    EXPECT_EQ(rec.at("ranks").size(), 2u);
    return rec.at("ranks");
  }
  static std::size_t count_of(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  }
  static std::uint64_t count(const json& rank, const char* call) {
    return rank.at("mpi_calls").contains(call) ? u(rank.at("mpi_calls"), call, "count") : 0;
  }
};

TEST_F(RealCodes, Mpi4pyUnderOpenMpiRunsWithItsOwnStatusAndIsMeasured) {
  // Exit status 7 from every rank after a measured job: the job's status, not ours (the preload
  // used to abort with 134 before MPI_Init_thread returned).
  const std::string py =
      "/usr/bin/python3 -c 'from mpi4py import MPI; import sys; c = MPI.COMM_WORLD\n"
      "for i in range(3): c.Barrier()\n"
      "b = bytearray(100); c.Bcast([b, MPI.BYTE], root=0); c.Bcast([b, MPI.BYTE], root=0)\n"
      "MPI.Finalize(); sys.exit(7)'";
  ASSERT_EQ(mpirun(2, py), 7) << log();
  EXPECT_EQ(record().at("job").at("program"), "python3");
  for (const json& r : two_ranks(log())) {
    SCOPED_TRACE("rank " + std::to_string(r.at("rank").get<int>()));
    EXPECT_EQ(count(r, "MPI_Barrier"), 3u);
    EXPECT_EQ(count(r, "MPI_Bcast"), 2u);
    EXPECT_EQ(u(r.at("mpi_calls"), "MPI_Bcast", "bytes"), 200u);
    EXPECT_GT(r.at("wall_s").get<double>(), 0);
  }
}

TEST_F(RealCodes, BindingLoadedLocallyUnderOpenMpiIsMeasured) {
  ASSERT_EQ(mpirun(2, std::string(LOCAL_LOADER) + " " + LOCAL_BINDING_OMPI), 0) << log();
  for (const json& r : two_ranks(log())) {
    SCOPED_TRACE("rank " + std::to_string(r.at("rank").get<int>()));
    EXPECT_EQ(count(r, "MPI_Allreduce"), 3u);
    EXPECT_EQ(count(r, "MPI_Bcast"), 2u);
    EXPECT_EQ(count(r, "MPI_Sendrecv"), 1u);
    EXPECT_EQ(u(r.at("mpi_calls"), "MPI_Bcast", "bytes"), 200u);
  }
}

#ifdef LOCAL_BINDING_MPICH
TEST_F(RealCodes, BindingLoadedLocallyUnderMpichIsMeasured) {
  // Hydra, the MPICH preload, a binding linked with libmpich and opened with RTLD_LOCAL.
  const std::string cmd = std::string(MPICH_HYDRA) + " -n 2 -genv LD_PRELOAD " +
                          HPCSENS_PRELOAD_MPICH_LIB + " -genv HPCSENS_OUT " + dir_ +
                          " -genv HPCSENS_RUN_ID m1 " + LOCAL_LOADER + " " + LOCAL_BINDING_MPICH;
  ASSERT_EQ(sh(cmd), 0) << log();
  for (const json& r : two_ranks(log())) {
    SCOPED_TRACE("rank " + std::to_string(r.at("rank").get<int>()));
    EXPECT_EQ(count(r, "MPI_Allreduce"), 3u);
    EXPECT_EQ(count(r, "MPI_Bcast"), 2u);
    EXPECT_EQ(count(r, "MPI_Sendrecv"), 1u);
  }
  EXPECT_NE(record().at("job").at("mpi_library").get<std::string>().find("MPICH"),
            std::string::npos);
}

TEST_F(RealCodes, FunctionTheMpiLacksFailsTheCallNotTheJob) {
  // mpi_barrier_f08_ is exported by the preload (its Fortran manglings) but no library of this
  // C program defines it (MPICH names its mpi_f08 entry points otherwise, and its Fortran library
  // is not loaded): feature detection by dlsym finds ours. The call fails with
  // the standard's MPI_ERR_UNSUPPORTED_OPERATION, the job runs on, and the record says why.
  const std::string cmd = std::string(MPICH_HYDRA) + " -n 2 -genv LD_PRELOAD " +
                          HPCSENS_PRELOAD_MPICH_LIB + " -genv HPCSENS_OUT " + dir_ +
                          " -genv HPCSENS_RUN_ID m1 " + PROG_PROBE_MPICH;
  ASSERT_EQ(sh(cmd), 0) << log();
  const std::string out = log();
  EXPECT_EQ(count_of(out, "mpi_barrier_f08_ unsupported\n"), 2u) << out;
  EXPECT_EQ(count_of(out, "MPI_Comm_rank success\n"), 2u) << out;
  // One warning per rank, naming the function.
  EXPECT_EQ(count_of(out, "hpcsens: warning: mpi_barrier_f08_ was called"), 2u) << out;
  two_ranks(out);
  EXPECT_EQ(record().at("preload").at("missing_functions"), json::array({"mpi_barrier_f08_"}));
}
#endif

TEST_F(RealCodes, ProcessWithoutMpiProbingForMpiRunsOn) {
  // A program with no MPI at all (a tool started by a job script inherits LD_PRELOAD) asks
  // dlsym whether MPI is there and calls what it finds: ours. It used to abort (134).
  const std::string cmd = std::string("env LD_PRELOAD=") + HPCSENS_PRELOAD_LIB + " " + PROG_PROBE;
  ASSERT_EQ(sh(cmd), 0) << log();
  const std::string out = log();
  EXPECT_EQ(count_of(out, "PMPI_Comm_rank unsupported\n"), 2u) << out;
  EXPECT_EQ(count_of(out, "MPI_Comm_rank unsupported\n"), 3u) << out;  // 2 of them PMPI_
  EXPECT_EQ(count_of(out, "mpi_query_thread_ unsupported\n"), 1u) << out;
  // One warning per function, not per call; nothing fatal.
  EXPECT_EQ(count_of(out, "hpcsens: warning:"), 3u) << out;
  EXPECT_EQ(count_of(out, "hpcsens: warning: PMPI_Comm_rank was called"), 1u) << out;
  EXPECT_EQ(out.find("fatal"), std::string::npos) << out;
  // Without the preload the same program finds nothing to call.
  ASSERT_EQ(sh(PROG_PROBE), 0);
  EXPECT_EQ(count_of(log(), " absent\n"), 4u) << log();
}

TEST_F(RealCodes, IostreamBytesCountedOnceAndExactly) {
  ASSERT_EQ(mpirun(2, PROG_IOSTREAM), 0) << log();
  EXPECT_EQ(record().at("job").at("program"), "preload_prog_iostream");
  for (const json& r : two_ranks(log())) {
    SCOPED_TRACE("rank " + std::to_string(r.at("rank").get<int>()));
    const json& io = r.at("io_calls");
    // std::ofstream: a 1,012-byte write() and writev() of the rest; std::ifstream: read().
    const std::uint64_t written =
        (io.contains("write") ? u(io, "write", "bytes") : 0) +
        (io.contains("writev") ? u(io, "writev", "bytes") : 0);
    EXPECT_EQ(written, 100012u);
    EXPECT_EQ(u(io, "read", "bytes"), 100012u);
    // Counted at the descriptor only: the stream's own calls carry no bytes of their own.
    EXPECT_EQ(r.at("io").at("stdio").at("bytes"), 0);
    EXPECT_EQ(r.at("io").at("posix").at("bytes"), 200024);
    // The two file streams were opened and closed; /dev/null and /proc/self/statm were not
    // file opens (fopen64 of each would be 4; open() of /dev/null and /proc would count).
    EXPECT_EQ(u(io, "fopen64", "count"), 2u);
    EXPECT_EQ(u(io, "fclose", "count"), 2u);
    EXPECT_FALSE(io.contains("open")) << io;
    EXPECT_FALSE(io.contains("close")) << io;
  }
}

}  // namespace
