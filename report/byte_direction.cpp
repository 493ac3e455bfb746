#include "report/byte_direction.h"

namespace hpcsens::report {
namespace {

bool direction_mentions(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

}  // namespace

bool is_receive_call(std::string_view name) {
  if (name.starts_with("PMPI_")) name.remove_prefix(1);
  return name == "MPI_Recv" || name == "MPI_Irecv" || name == "MPI_Mrecv" || name == "MPI_Imrecv" ||
         name == "MPI_Recv_init" || name == "MPI_Precv_init";
}

bool is_collective_call(std::string_view name) {
  if (name.starts_with("PMPI_")) name.remove_prefix(1);
  if (!name.starts_with("MPI_")) return false;
  name.remove_prefix(4);
  if (name.ends_with("_init")) name.remove_suffix(5);  // MPI-4 persistent collectives
  if (name.starts_with("Neighbor_") || name.starts_with("Ineighbor_")) return true;
  // Non-blocking forms: "I" before the lower-cased name (MPI_Iallreduce).
  const bool nonblocking = name.size() > 1 && name[0] == 'I' && name[1] >= 'a' && name[1] <= 'z';
  if (nonblocking) name.remove_prefix(1);
  static constexpr std::string_view kNames[] = {"barrier", "bcast", "reduce", "allreduce", "gather", "gatherv",
                                                "scatter", "scatterv", "allgather", "allgatherv", "alltoall",
                                                "alltoallv", "alltoallw", "reduce_scatter", "reduce_scatter_block",
                                                "scan", "exscan"};
  if (name.empty() || (!nonblocking && !(name[0] >= 'A' && name[0] <= 'Z'))) return false;
  for (std::string_view n : kNames)
    if (name.size() == n.size() && (name[0] | 0x20) == n[0] && name.substr(1) == n.substr(1)) return true;
  return false;
}

Directed mpi_bytes(std::string_view call, std::uint64_t bytes, std::uint64_t bytes_received) {
  Directed d;
  if (is_receive_call(call)) d.received = bytes + bytes_received;
  else d.sent = bytes, d.received = bytes_received;
  return d;
}

Directed io_bytes(std::string_view call, std::uint64_t bytes) {
  Directed d;
  if (direction_mentions(call, "write") || direction_mentions(call, "put") || direction_mentions(call, "printf")) d.written = bytes;
  else d.read = bytes;  // read, pread, fread, fgets, fscanf, MPI_File_read_*; zero for the rest
  return d;
}

void add_call_volume(RankVolume& v, std::string_view call, std::uint64_t bytes, std::uint64_t bytes_received) {
  const Directed d = mpi_bytes(call, bytes, bytes_received);
  if (is_collective_call(call)) {
    v.collective += d.sent + d.received;
  } else {
    v.p2p_sent += d.sent;
    v.p2p_received += d.received;
  }
}

}  // namespace hpcsens::report
