#pragma once
// Energy of this node over a span: one reading of every RAPL zone at the start, one at the end,
// and readings in between often enough that no counter wraps twice unseen. One per node, in the
// `hpcsens run` process; nothing of it runs inside the ranks or on their MPI calls.
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "energy/powercap.h"

namespace hpcsens::energy {

// Seconds on CLOCK_MONOTONIC.
double monotonic_s();

// The readings, driven by the caller (tests call sample() after advancing a fake tree).
class Session {
 public:
  // Discovers the zones under root and takes the first reading; unavailable (reason()) otherwise.
  explicit Session(std::string root, std::function<double()> clock = monotonic_s);
  bool available() const { return reason_.empty(); }
  const std::string& reason() const { return reason_; }
  // How often to sample: the shortest interval any zone's range needs (energy_math.h).
  double interval_s() const { return interval_s_; }
  // Reads every zone and adds its advance since its last reading. A zone that fails to read is
  // left out from then on, with its reason (its energy so far would understate the span).
  void sample();
  int samples() const { return samples_; }
  // A last reading, then this node's object of the record's energy section (record-format.md).
  nlohmann::json finish();

 private:
  struct Counter {
    Zone zone;
    std::uint64_t last_uj = 0;
    std::uint64_t total_uj = 0;
    int wraps = 0;
    std::string error;
  };
  std::string root_;
  std::function<double()> clock_;
  std::vector<Counter> counters_;
  std::string reason_;
  std::string dram_note_;
  double interval_s_ = 0;
  double start_s_ = 0;
  double end_s_ = 0;
  int samples_ = 0;
};

// A Session sampled by a thread of its own every interval_s() until stop().
class BackgroundSampler {
 public:
  explicit BackgroundSampler(std::string root);
  ~BackgroundSampler();
  BackgroundSampler(const BackgroundSampler&) = delete;
  BackgroundSampler& operator=(const BackgroundSampler&) = delete;
  // Stops the thread, takes the last reading: this node's object (once; later calls repeat it).
  nlohmann::json stop();
  // This node's object up to now, with a reading taken now; sampling goes on (the node's counter
  // agent answers each rank's stop with it: the node's last rank to stop has the whole span).
  nlohmann::json snapshot();
  // Samples taken so far (tests wait on it).
  int samples();

 private:
  void loop();
  Session session_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::thread thread_;
  nlohmann::json result_;
};

// The record's top-level `energy` section from the nodes' objects: available when any node is,
// else the first node's reason.
nlohmann::json energy_section(const std::vector<nlohmann::json>& nodes);

// Key of a rank's record under which its node's counter agent handed over the node's object.
inline constexpr const char* kRankNodeEnergy = "node_energy";

// Moves the nodes' objects the ranks carry (ranks[].node_energy) into the record's `energy`
// section: per host the one covering the longest span (the node's last rank to stop), hosts
// already there (the launch host, read by `hpcsens run` over the whole job) kept as they are.
// Leaves the record unchanged apart from that; a record without an energy section gets none.
void merge_rank_node_energy(nlohmann::json& record);

// What RAPL measures and what it does not, said wherever energy is shown.
inline constexpr const char* kCoverage =
    "RAPL: processor packages (cores, uncore) and DRAM only; no fans, PSU losses, disks or network";

}  // namespace hpcsens::energy
