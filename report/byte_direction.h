#pragma once
// Which way a recorded call's bytes went, so no table column mixes directions (summing a mixed
// column counts a message once at the sender and again at the receiver). The record keeps one
// `bytes` per call (docs/record-format.md): what a send, a collective (this rank's contribution)
// or an RMA call sent, what a receive received, what an I/O call read or wrote; a call that both
// sends and receives (MPI_Sendrecv) keeps its received bytes apart in `bytes_received`.
#include <cstdint>
#include <string_view>

namespace hpcsens::report {

struct Directed {
  std::uint64_t sent = 0, received = 0;     // MPI calls
  std::uint64_t read = 0, written = 0;      // I/O calls
};

// MPI receive calls (blocking, non-blocking, matched, persistent): their bytes are received.
bool is_receive_call(std::string_view name);
// An MPI call's bytes by direction.
Directed mpi_bytes(std::string_view call, std::uint64_t bytes, std::uint64_t bytes_received);
// Collectives, blocking, non-blocking and persistent (their bytes: what this rank contributes).
bool is_collective_call(std::string_view name);
// One rank's MPI volume: point-to-point (and RMA) bytes sent and received apart, and what it
// contributed to collectives (which a partner matrix cannot show).
struct RankVolume {
  std::uint64_t p2p_sent = 0, p2p_received = 0, collective = 0;
};
// Adds one recorded MPI call (its name, `bytes` and `bytes_received`) to `v`.
void add_call_volume(RankVolume& v, std::string_view call, std::uint64_t bytes, std::uint64_t bytes_received);

// An I/O call's bytes by direction, from its name: every call of the preload's table that moves
// data has "read"/"get"/"scanf" (in) or "write"/"put"/"printf" (out) in it; the others (open,
// seek, sync) carry no bytes.
Directed io_bytes(std::string_view call, std::uint64_t bytes);

}  // namespace hpcsens::report
