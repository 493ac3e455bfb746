#pragma once
// The rates of a candidate as the user writes them (network bandwidth in GB/s, not the model's
// ns per byte), which of them the model uses, and what a candidate that leaves one out gets: the
// model's baseline value, said so. Only the rates the model has terms for are required.
#include <string>
#include <vector>

#include "model/analysis.h"
#include "model/predict.h"

namespace hpcsens::model {

// One of the rates a candidate can give, in the user's unit.
struct UserRate {
  Rate rate;           // the model's rate it stands for
  const char* name;    // system-file field: cpu_ghz, mem_gbs, lat_ns, net_latency_us, net_bandwidth_gbs
  const char* option;  // command-line option: --cpu-ghz, ...
  const char* unit;    // GHz, GB/s, ns, us, GB/s
};

// Every rate a candidate can give, in table order.
const std::vector<UserRate>& user_rates();

// The rate at a configuration in the user's unit (net bandwidth = 1 / ns per byte); NaN when absent.
double user_value(const UserRate& r, const Point& p);

// Whether the model has a term built from this rate.
bool model_uses(const ModelSpec& spec, Rate r);

// The measured range [lo, hi] of a rate over the model's points, in the user's unit (NaN, NaN
// when no point has it).
std::pair<double, double> measured_range(const ModelReport& m, const UserRate& r);

// Fills what `sys` leaves out from the model's baseline configuration and returns every rate it
// then has (given or not, used by the model or not; a renderer shows the used and the given ones). Throws InputError naming the system file's
// line and field (or the option) when the model has a term for a rate the candidate lacks.
std::vector<PredictedRate> resolve_rates(const ModelReport& m, SystemSpec& sys);

// The value of a rate in `sys` (after resolve_rates), in the user's unit; NaN when absent.
double system_value(const UserRate& r, const SystemSpec& sys);

}  // namespace hpcsens::model
