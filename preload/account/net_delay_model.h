#pragma once
// The network-delay knob's arithmetic (pure: no MPI, no clock), so it is tested without a job.
//
// A slower network is emulated by spinning before a message leaves (docs/methodology.md,
// "The network-delay knob"): each message costs an added latency d_lat plus an added time per
// byte d_byte. A collective is charged what its usual algorithm puts on the critical path: the
// number of message steps a rank waits through and the bytes it sends in them (Thakur,
// Rabenseifner & Gropp 2005, the algorithms MPICH and Open MPI's tuned module use).
#include <cstdint>
#include <optional>
#include <string>

namespace hpcsens::preload {

// How a collective's critical path is made of messages. `n` below is the call's recorded bytes
// (what this rank contributes, mpi_calls.tbl), `p` the group size.
enum class NetShape : std::uint8_t {
  p2p,       // one message of n bytes
  barrier,   // ceil(log2 p) steps of no payload (dissemination)
  tree,      // ceil(log2 p) steps of n bytes each (Scan, Exscan: recursive doubling)
  allreduce, // short: as tree (recursive doubling); long (n >= kLongReduceBytes): Rabenseifner's
             // reduce-scatter + allgather, 2 ceil(log2 p) steps, 2 n (p - 1) / p bytes
  reduce,    // short: as tree (binomial); long: reduce-scatter + gather, as allreduce's long
  bcast,     // short: as tree (binomial); long (n >= kLongBcastBytes): van de Geijn's scatter +
             // ring allgather, ceil(log2 p) + p - 1 steps, 2 n (p - 1) / p bytes
  gather,    // ceil(log2 p) steps, n (p - 1) bytes in all (binomial Gather/Scatter: the data
             // doubles at each step)
  allgather, // short: as gather (recursive doubling); long (n p >= kLongAllgatherBytes): ring,
             // p - 1 steps, n (p - 1) bytes
  halving,   // ceil(log2 p) steps, n (p - 1) / p bytes (recursive halving Reduce_scatter;
             // n is the whole vector)
  pairwise,  // p - 1 steps, n (p - 1) / p bytes (pairwise-exchange Alltoall; n is all this
             // rank sends)
  alltoall,  // by block n / p: up to kShortAlltoallBlock with p >= 8, Bruck's ceil(log2 p) steps
             // of n / 2 bytes; up to kMediumAlltoallBlock, every block posted at once (one
             // latency, n (p - 1) / p bytes through the port); above, as pairwise
  scattered, // Alltoallv/w: every block posted at once, one latency, n (p - 1) / p bytes
  neighbor,  // one step (all neighbours at once), n bytes (they leave through one port)
};

// Where MPICH switches to its long-message algorithms (its defaults of
// MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE, _BCAST_SHORT_MSG_SIZE and _ALLGATHER_LONG_MSG_SIZE; Thakur,
// Rabenseifner & Gropp 2005). Charging a long Allreduce log2 p full copies of its vector would
// put 3x its real bytes on the critical path at 64 ranks, and a fitted net_bw 3x too large.
inline constexpr std::uint64_t kLongReduceBytes = 2048;
inline constexpr std::uint64_t kLongBcastBytes = 12288;
inline constexpr std::uint64_t kLongAllgatherBytes = 524288;
inline constexpr std::uint64_t kShortAlltoallBlock = 256;     // MPIR_CVAR_ALLTOALL_SHORT_MSG_SIZE
inline constexpr std::uint64_t kMediumAlltoallBlock = 32768;  // MPIR_CVAR_ALLTOALL_MEDIUM_MSG_SIZE

struct NetCost {
  double messages = 0;  // message steps on the critical path
  double bytes = 0;     // bytes on the critical path
};

// Message steps and bytes that one call of `shape` puts on the critical path.
NetCost net_cost(NetShape shape, std::int64_t p, std::uint64_t n) noexcept;

// ceil(log2 p), 0 for p <= 1.
int ceil_log2(std::int64_t p) noexcept;

// The knob as the preload reads it from its environment (set by the sweep for one run only).
struct NetDelaySetting {
  double latency_us = 0;     // added per message
  double bandwidth_gbs = 0;  // the added link's bandwidth: d_byte = 1 / bandwidth (0: none)
  bool on() const { return latency_us > 0 || bandwidth_gbs > 0; }
  // Added nanoseconds per byte (1 GB/s = 1 byte/ns).
  double ns_per_byte() const { return bandwidth_gbs > 0 ? 1.0 / bandwidth_gbs : 0.0; }
};

// Parses the two variables' values (null or empty: not set). An unusable value (not a number,
// negative, not finite, absurdly large) gives nullopt and `error` naming the variable.
std::optional<NetDelaySetting> parse_net_delay(const char* latency_us, const char* bandwidth_gbs,
                                               std::string* error);

// The feedback on the spins' length (net_delay.cpp): every target is scaled by `scale`, and each
// spin moves it by a fraction of its own relative error. A spin asked for less than
// `min_requested` leaves it alone: its length is mostly the spin's fixed cost and one clock
// read, so its relative error says nothing about preemption. Counted, such spins pulled the
// scale to ~0.83 in any job that mixes a 64 KiB halo with a scalar Allreduce (8 bytes at an
// added 5 GB/s is 1.6 ns asked, ~100 ns taken), and every large message then fell 17 % short.
// Any unit, the same for all three lengths.
inline constexpr double kSpinScaleGain = 1.0 / 32;  // ~100 spins to settle: a quiet correction
inline constexpr double kSpinScaleMin = 0.5, kSpinScaleMax = 1.1;
inline constexpr double kSpinErrorCap = 0.5;  // one long preemption moves it at most this x gain
double next_spin_scale(double scale, double requested, double achieved, double min_requested) noexcept;

}  // namespace hpcsens::preload
