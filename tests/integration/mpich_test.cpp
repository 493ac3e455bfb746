// MPICH end to end: programs compiled with MPICH's mpicc.mpich / mpifort.mpich, launched by
// MPICH's Hydra (or bare, as a singleton) through build/bin/hpcsens run, which must pick
// libhpcsens_preload_mpich.so. Counts are what mpich_prog.c / mpich_prog.f90 provably make.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/text_escape.h"
#include "run_fixture.h"

namespace hpcsens::testing {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

const std::string kProgC = MPICH_PROG_C;
const std::string kProgF = MPICH_PROG_F;
const std::string kProgF08 = MPICH_PROG_F08;
const std::string kProgMpi4 = MPICH_PROG_MPI4;
const std::string kHydra = MPICH_HYDRA;

// The library's own answer, asked directly (MPI_Get_library_version may be called before
// MPI_Init): the first line, blanks collapsed to one space, ends trimmed.
std::string mpich_library_first_line() {
  void* lib = dlopen("libmpich.so.12", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) return std::string("dlopen failed: ") + dlerror();
  using GetVersion = int (*)(char*, int*);
  auto get = reinterpret_cast<GetVersion>(dlsym(lib, "MPI_Get_library_version"));
  if (get == nullptr) return "no MPI_Get_library_version in libmpich.so.12";
  std::string raw(8192, '\0');  // > MPICH's MPI_MAX_LIBRARY_VERSION_STRING
  int len = 0;
  get(raw.data(), &len);
  raw.resize(raw.find('\0'));
  std::istringstream words(raw.substr(0, raw.find('\n')));
  std::string word, line;
  while (words >> word) line += (line.empty() ? "" : " ") + word;
  return line;
}

class Mpich : public HpcsensRunTest {
 protected:
  static void expect_mpich_job(const json& rec, const std::string& launcher, int nranks) {
    EXPECT_EQ(rec.at("job").at("launcher"), launcher);
    EXPECT_NE(rec.at("job").at("mpi_library").get<std::string>().find("MPICH"), std::string::npos)
        << rec.at("job").at("mpi_library");
    EXPECT_EQ(rec.at("job").at("nranks"), nranks);
    ASSERT_EQ(rec.at("ranks").size(), static_cast<std::size_t>(nranks));
    EXPECT_EQ(rec.at("complete"), true);
    for (const auto& r : rec.at("ranks")) {
      EXPECT_GT(r.at("wall_s").get<double>(), 0);
      EXPECT_GE(r.at("mpi_s").get<double>(), 0);
    }
  }
};

TEST_F(Mpich, HydraCProgramCountsAndBytes) {
  const std::vector<std::string> job = {kHydra, "-n", "2", kProgC};
  const auto r = wrap(job);
  ASSERT_FALSE(r.timed_out);
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_EQ(r.err.find("not found"), std::string::npos) << r.err;
  const json rec = record(r);
  expect_mpich_job(rec, "mpich-hydra", 2);
  expect_calls(rec, {{"MPI_Comm_rank", 1}, {"MPI_Comm_size", 1}, {"MPI_Sendrecv", 4}, {"MPI_Bcast", 2}, {"MPI_Allreduce", 3}, {"MPI_Barrier", 1}});
  // Issue 19: MPICH puts a tab between "MPICH Version:" and the number, which the text
  // report showed as '?'. The record holds the library's first line as text a table can show.
  const std::string lib = rec.at("job").at("mpi_library");
  EXPECT_TRUE(text::is_valid_utf8(lib)) << lib;
  EXPECT_EQ(lib.find("\xEF\xBF\xBD"), std::string::npos) << lib;  // U+FFFD
  const auto is_control = [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; };
  EXPECT_TRUE(std::none_of(lib.begin(), lib.end(), is_control)) << lib;
  EXPECT_EQ(lib, mpich_library_first_line());
  const std::string printed = r.out + r.err;  // the table `run` prints after the job
  EXPECT_NE(printed.find("MPI library"), std::string::npos) << printed;
  EXPECT_NE(printed.find(lib), std::string::npos) << printed;
  for (const auto& rank : rec.at("ranks")) {
    // 4 x 64 bytes each way: bytes are what was sent, the received ones apart (issue 20).
    EXPECT_EQ(rank.at("mpi_calls").at("MPI_Sendrecv").at("bytes"), 256) << rank.at("rank");
    EXPECT_EQ(rank.at("mpi_calls").at("MPI_Sendrecv").at("bytes_received"), 256) << rank.at("rank");
  }
  expect_same_stdout(job, r);
}

TEST_F(Mpich, HydraFortranCallsCountedOnce) {
  // MPICH's mpi_send_ (libmpichfort) calls the C MPI_Send: both are interposed, and the call
  // must be counted once, with the Fortran datatype converted for the byte count.
  const std::vector<std::string> job = {kHydra, "-n", "2", kProgF};
  const auto r = wrap(job);
  ASSERT_FALSE(r.timed_out);
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const json rec = record(r);
  expect_mpich_job(rec, "mpich-hydra", 2);
  expect_calls(rec, {{"MPI_Comm_rank", 1}, {"MPI_Comm_size", 1}, {"MPI_Send", 3}, {"MPI_Recv", 3}, {"MPI_Allreduce", 2}, {"MPI_Gather", 1},
                     {"MPI_Barrier", 1}});
  for (const auto& rank : rec.at("ranks")) {
    EXPECT_EQ(rank.at("mpi_calls").at("MPI_Send").at("bytes"), 60) << rank.at("rank");
    EXPECT_EQ(rank.at("mpi_calls").at("MPI_Recv").at("bytes"), 60) << rank.at("rank");
    // Rank 0 passed the Fortran MPI_IN_PLACE (sendcount 0): counted as its recvcount x 4 bytes.
    EXPECT_EQ(rank.at("mpi_calls").at("MPI_Gather").at("bytes"), 4) << rank.at("rank");
  }
  expect_same_stdout(job, r);
}

TEST_F(Mpich, HydraFortran2008CallsCountedOnce) {
  const std::vector<std::string> job = {kHydra, "-n", "2", kProgF08};
  const auto r = wrap(job);
  ASSERT_FALSE(r.timed_out);
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const json rec = record(r);
  expect_mpich_job(rec, "mpich-hydra", 2);
  expect_calls(rec, {{"MPI_Comm_rank", 1}, {"MPI_Allreduce", 1}, {"MPI_Bcast", 2}, {"MPI_Barrier", 1}});
  for (const auto& rank : rec.at("ranks"))
    EXPECT_EQ(rank.at("mpi_calls").at("MPI_Bcast").at("bytes"), 32) << rank.at("rank");
  expect_same_stdout(job, r);
}

TEST_F(Mpich, HydraMpi4CallsCountedWithBytes) {
  // MPI-4 calls MPICH 4.0 exports (mpi4_calls.tbl, wrapped only in the MPICH preload):
  // large-count '_c' variants, a persistent collective, Isendrecv and a partitioned pair.
  const std::vector<std::string> job = {kHydra, "-n", "2", kProgMpi4};
  const auto r = wrap(job);
  ASSERT_FALSE(r.timed_out);
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const json rec = record(r);
  expect_mpich_job(rec, "mpich-hydra", 2);
  expect_calls(rec, {{"MPI_Comm_rank", 1}, {"MPI_Send_c", 1}, {"MPI_Recv_c", 1},
                     {"MPI_Allreduce_c", 1}, {"MPI_Alltoallv_c", 1}, {"MPI_Allreduce_init", 1},
                     {"MPI_Start", 3}, {"MPI_Wait", 4}, {"MPI_Isendrecv", 1},
                     {"MPI_Psend_init", 1}, {"MPI_Precv_init", 1}, {"MPI_Startall", 1},
                     {"MPI_Pready_range", 1}, {"MPI_Waitall", 1}, {"MPI_Request_free", 3},
                     {"MPI_Barrier", 1}});
  const std::map<std::string, int> bytes = {
      {"MPI_Send_c", 800}, {"MPI_Recv_c", 800},  // 200 doubles posted, 100 arrive
      {"MPI_Allreduce_c", 40}, {"MPI_Alltoallv_c", 32}, {"MPI_Isendrecv", 64},
      {"MPI_Allreduce_init", 0}, {"MPI_Psend_init", 0}};
  for (const auto& rank : rec.at("ranks"))
    for (const auto& [name, b] : bytes)
      EXPECT_EQ(rank.at("mpi_calls").at(name).at("bytes"), b) << name << " rank " << rank.at("rank");
  expect_same_stdout(job, r);
}

// tests/preload/prog_firecv.F90: rank 1 posts ten 100-byte receives, 40 bytes arrive for each,
// completed by every Wait/Test form. MPICH 4.0.x's mpi_f08 Waitany/Waitsome/Testany/Testsome
// hand back 0-based indices (pmodels/mpich#6270): 240 of the 400 bytes were counted before.
void expect_fortran_receives(const json& rec) {
  for (const auto& r : rec.at("ranks")) {
    if (r.at("rank") != 1) continue;
    const json& mpi = r.at("mpi_calls");
    EXPECT_EQ(mpi.at("MPI_Irecv").at("count"), 10);
    EXPECT_EQ(mpi.at("MPI_Irecv").at("bytes"), 400);  // posted: 1000
    EXPECT_EQ(r.at("msg_sizes").at("MPI_Irecv"), json({0, 0, 0, 0, 0, 0, 10}));
    EXPECT_EQ(mpi.at("MPI_Recv").at("bytes"), 40 + 40 + 80);
    for (const char* c : {"MPI_Waitany", "MPI_Waitall"}) EXPECT_EQ(mpi.at(c).at("count"), 1) << c;
  }
  EXPECT_FALSE(rec.at("preload").contains("drops")) << rec.at("preload");
}

TEST_F(Mpich, HydraFortranReceivesCountWhatArrived) {
  for (const std::string prog : {MPICH_PROG_FIRECV, MPICH_PROG_F08IRECV}) {
    SCOPED_TRACE(prog);
    const auto r = wrap({kHydra, "-n", "2", prog});
    ASSERT_FALSE(r.timed_out);
    ASSERT_EQ(r.exit_status, 0) << r.err;
    const json rec = record(r);
    expect_mpich_job(rec, "mpich-hydra", 2);
    expect_fortran_receives(rec);
  }
}

TEST_F(Mpich, HydraExitStatusPropagates) {
  const auto r = wrap({kHydra, "-n", "2", kProgC, "3"});
  ASSERT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_status, 3) << r.err;
  expect_mpich_job(record(r), "mpich-hydra", 2);
}

TEST_F(Mpich, BareExecutableLinkedToMpichUsesMpichPreload) {
  // No launcher: a singleton, recognised as MPICH by the libraries the executable needs.
  const auto r = wrap({kProgC});
  ASSERT_FALSE(r.timed_out);
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const json rec = record(r);
  expect_mpich_job(rec, "singleton", 1);
  expect_calls(rec, {{"MPI_Comm_rank", 1}, {"MPI_Comm_size", 1}, {"MPI_Sendrecv", 4}, {"MPI_Bcast", 2}, {"MPI_Allreduce", 3}, {"MPI_Barrier", 1}});
  expect_same_stdout({kProgC}, r);
}

}  // namespace
}  // namespace hpcsens::testing
