#pragma once
// The end of a sweep: results.csv (one row per finished run, written atomically into the
// checked directory) and the summary table, with plain-words warnings where the numbers need
// care (STREAM arrays near the cache size, a measured clock that is not the requested one).
#include <string>
#include <utility>
#include <vector>

#include "sweep/calibrate/clock_watch.h"  // the clock notes the summary repeats
#include "sweep/spec/plan.h"
#include "sweep/journal/session.h"
#include "sweep/spec/spec.h"

namespace hpcsens::sweep {

// Returns "" or the reason results.csv could not be written (naming the file and cause).
std::string write_summary(const SweepSpec& spec, const Plan& plan, const Session& s);

}  // namespace hpcsens::sweep
