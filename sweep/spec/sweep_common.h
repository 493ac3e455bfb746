#pragma once
// Small helpers every sweep module shares: timestamps, a monotonic clock, numbers in messages, a point as JSON,
// whether a record is usable.
#include <string>

#include <nlohmann/json.hpp>

#include "sweep/spec/plan.h"
#include "sweep/spec/spec.h"

namespace hpcsens::sweep {

std::string utc_now();
double monotonic_s();       // steady clock, seconds: for durations and deadlines only
std::string num(double v);  // %g
nlohmann::json point_json(const Point& p, const SweepSpec& spec);
bool record_usable(const std::string& path);  // exists and loads
int slurm_nnodes();  // nodes of the surrounding Slurm allocation (1 outside Slurm)

}  // namespace hpcsens::sweep
