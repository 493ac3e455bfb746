// Bytes by direction (report/byte_direction.h): sends and collectives sent, receives received,
// MPI_Sendrecv split, I/O read or written by the call's name.
#include "report/byte_direction.h"

#include <gtest/gtest.h>

#include "report/html_report.h"

namespace hpcsens::report {
namespace {

using nlohmann::json;

TEST(ByteDirection, MpiCallsSplitIntoSentAndReceived) {
  Directed d = mpi_bytes("MPI_Send", 64, 0);
  EXPECT_EQ(d.sent, 64u);
  EXPECT_EQ(d.received, 0u);
  for (const char* recv : {"MPI_Recv", "MPI_Irecv", "MPI_Mrecv", "MPI_Imrecv", "PMPI_Recv"}) {
    d = mpi_bytes(recv, 64, 0);
    EXPECT_EQ(d.sent, 0u) << recv;
    EXPECT_EQ(d.received, 64u) << recv;
  }
  d = mpi_bytes("MPI_Sendrecv", 8, 1024);  // sent 8, received 1 KiB: never summed into one
  EXPECT_EQ(d.sent, 8u);
  EXPECT_EQ(d.received, 1024u);
  d = mpi_bytes("MPI_Allreduce", 80, 0);  // a collective: what this rank contributes
  EXPECT_EQ(d.sent, 80u);
  EXPECT_EQ(d.received, 0u);
}

TEST(ByteDirection, IoCallsReadOrWrittenByName) {
  for (const char* w : {"write", "pwrite64", "writev", "fwrite", "fputs", "fputc", "vfprintf", "MPI_File_write_at_all"})
    EXPECT_EQ(io_bytes(w, 10).written, 10u) << w;
  for (const char* r : {"read", "pread", "readv", "fread", "fgets", "__isoc99_vfscanf", "MPI_File_read_all"})
    EXPECT_EQ(io_bytes(r, 10).read, 10u) << r;
}

}  // namespace
}  // namespace hpcsens::report

namespace hpcsens::report {
namespace {

TEST(ByteDirection, CollectivesByName) {
  for (const char* c : {"MPI_Allreduce", "MPI_Iallreduce", "MPI_Bcast", "MPI_Ineighbor_alltoallv",
                        "MPI_Allreduce_init", "MPI_Reduce_scatter_block", "PMPI_Gatherv"})
    EXPECT_TRUE(is_collective_call(c)) << c;
  for (const char* c : {"MPI_Send", "MPI_Isend", "MPI_Irecv", "MPI_Put", "MPI_Init", "MPI_Ibarrierx"})
    EXPECT_FALSE(is_collective_call(c)) << c;
}

// Beside the partner matrix: each rank's point-to-point bytes sent and received apart and its
// collective bytes (issue 20), from the ranks' mpi_calls.
TEST(ByteDirection, PartnerSectionShowsEachRanksVolume) {
  json ranks = json::array();
  for (int k = 0; k < 2; ++k)
    ranks.push_back({{"rank", k},
                     {"mpi_calls",
                      {{"MPI_Send", {{"count", 1}, {"seconds", 0.1}, {"bytes", 100}}},
                       {"MPI_Recv", {{"count", 1}, {"seconds", 0.1}, {"bytes", 100}}},
                       {"MPI_Sendrecv", {{"count", 1}, {"seconds", 0.1}, {"bytes", 8}, {"bytes_received", 1024}}},
                       {"MPI_Allreduce", {{"count", 10}, {"seconds", 0.1}, {"bytes", 80 * (k + 1)}}}}},
                     {"partners", {{{"rank", 1 - k}, {"bytes", 108}, {"messages", 2}}}}});
  const auto sections = run_extra_sections(ranks, false);
  json found;
  for (const auto& s : sections)
    if (s.contains("tables"))
      for (const auto& t : s.at("tables"))
        if (t.value("title", "").starts_with("Bytes per rank")) found = t;
  ASSERT_TRUE(found.is_object());
  const json* volume = &found;
  EXPECT_EQ(volume->at("header"), json({"rank", "p2p sent", "p2p received", "collective bytes"}));
  ASSERT_EQ(volume->at("rows").size(), 2u);
  EXPECT_EQ(volume->at("rows")[0], json({0, 108, 1124, 80}));
  EXPECT_EQ(volume->at("rows")[1], json({1, 108, 1124, 160}));
}

}  // namespace
}  // namespace hpcsens::report
