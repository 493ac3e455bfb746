#pragma once
// The network at each sweep configuration: measured base rates (hpcsens-stream --network through
// the job's launcher, intra- and inter-node separately) and the rates the model uses, the base
// plus what the point's network-delay knob added.
#include <csignal>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sweep/spec/spec.h"

namespace hpcsens::sweep {

// Runs the measurement; on success returns the keys for the record's config: `net_measured`
// (the calibrator's line) and `net_base_latency_us` / `net_base_bandwidth_gbs` (inter-node when
// the ranks span hosts, else intra-node). `error` is set when it fails. Fewer than two ranks:
// nothing to measure, an empty object.
nlohmann::json calibrate_network(const std::vector<std::string>& launcher, const std::string& stream_exe,
                                 double timeout_s, const volatile std::sig_atomic_t* stop_flag, std::string* error);

// Adds `net_latency_us` (base + added latency) and `net_ns_per_byte` (1/base + 1/added bandwidth,
// 1 GB/s = 1 ns per byte) to a run's config that has the knob's `net_added_*` keys, and
// `net_rates_source`; without a measured base it writes no rates (the added delay alone is not the
// network's rate) and says so in `net_rates_source`. The added parts are scaled by
// `achieved_factor`, the preload's achieved / requested delay of that run (record
// `preload.net_delay`), recorded as `net_delay_achieved_factor`. Pure.
void add_network_rates(nlohmann::json& config, double achieved_factor = 1.0);

// The achieved / requested delay of a record's `preload.net_delay` (1 when absent or unusable).
double achieved_factor(const nlohmann::json& preload_section);

}  // namespace hpcsens::sweep
