#pragma once
// The network-delay knob in the wrappers (net_delay_model.h has the arithmetic and the reasons).
//
// Off (no HPCSENS_NET_* in the run's environment), a wrapper pays one load and one predictable
// branch on g_net_delay_on. On, a message spins on the call clock before it is handed to MPI:
// from the wrapper's own start tick, so the wrapper's cost counts toward the delay; short delays
// spin (a rank waiting on a real network polls and keeps its core), long ones sleep most of it.
#include <cstdint>
#include <string>
#include <vector>

#include "preload/account/clock.h"
#include "preload/account/net_delay_model.h"

namespace hpcsens::preload {

// Written once at MPI_Init, before the first counted call; read by every wrapper.
extern bool g_net_delay_on;
// The job spans several nodes: only messages between nodes are delayed (a slower interconnect
// does not slow a node's shared memory). On one node every message is (the knob then stands in
// for an interconnect the machine does not have). Written with g_net_delay_on.
extern bool g_net_inter_only;

// Whether a message to `world_rank` (MPI_COMM_WORLD) stays on this node in a job that spans
// several, and so is not delayed (false on a one-node job and for an unknown rank).
bool net_stays_on_node(int world_rank) noexcept;

// Delays of at least this long sleep until kSpinTailNs before their end, then spin.
inline constexpr double kSleepAboveNs = 500e3;
inline constexpr double kSpinTailNs = 100e3;

// Waits until `start` + messages x d_lat + bytes x d_byte (in call-clock ticks), less the spin's
// own fixed cost: spinning, or for a delay of kSleepAboveNs and more, sleeping until its last
// kSpinTailNs and spinning those.
void net_delay_spin(std::uint64_t start, double messages, double bytes) noexcept;

// This process's delays so far: requested and achieved (from each call's start tick to the end
// of its spin), in seconds.
struct NetDelayTotals {
  double requested_s = 0, achieved_s = 0;
  double spin_excess_ns = 0;  // the fixed cost taken off every spin (measured at start-up)
  double spin_scale = 1;      // the feedback's factor on every target at the end (net_delay.cpp)
};
NetDelayTotals net_delay_totals(double seconds_per_tick) noexcept;

// A point-to-point send to `dest` (MPI_PROC_NULL, `proc_null`, sends nothing and waits nothing);
// `world_dest`, its MPI_COMM_WORLD rank where the job spans nodes (-1: unknown, delayed).
inline void net_delay_send(std::uint64_t start, std::int64_t dest, std::int64_t proc_null,
                           std::int64_t bytes, int world_dest = -1) noexcept {
  if (dest == proc_null || bytes < 0) return;
  if (net_stays_on_node(world_dest)) return;
  net_delay_spin(start, 1, static_cast<double>(bytes));
}

// A collective over `p` ranks contributing `bytes`: its algorithm's critical path (net_cost);
// nothing when `off_node` is false (every member on this node, in a job that spans nodes).
void net_delay_coll(std::uint64_t start, NetShape shape, std::int64_t p, std::int64_t bytes,
                    bool off_node = true) noexcept;

// What MPI_Init found in the environment, for the record and the warning.
struct NetDelayState {
  NetDelaySetting setting;
  bool on = false;
  int nodes = 1;  // distinct processor names among the job's ranks
  double ticks_per_ns = 1;
  std::string error;  // an unusable value: the job runs without delay
};

// Reads HPCSENS_NET_* and, when the knob is on, measures the call clock's rate (a few ms) and
// arms the wrappers. Call once, before the first counted call.
NetDelayState setup_net_delay() noexcept;

// Every rank's node (the hash of its processor name, by MPI_COMM_WORLD rank; net_node_hash) and
// this process's: where they name more than one node, only messages between nodes are delayed.
// Returns the number of distinct nodes. Called by MPI_Init after it gathered the hashes.
int set_net_nodes(std::vector<std::uint64_t> node_of, std::uint64_t mine) noexcept;
std::uint64_t net_node_hash(const std::string& processor_name) noexcept;

}  // namespace hpcsens::preload
