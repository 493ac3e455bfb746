#pragma once
// The end of a sweep: results.csv (one row per finished run, written atomically into the
// checked directory) and the summary table, with plain-words warnings where the numbers need
// care (STREAM arrays near the cache size, a measured clock that is not the requested one).
#include <string>

#include "sweep/plan.h"
#include "sweep/session.h"
#include "sweep/spec.h"

namespace hpcsens::sweep {

// Returns "" or the reason results.csv could not be written (naming the file and cause).
std::string write_summary(const SweepSpec& spec, const Plan& plan, const Session& s);

// The plain-words warning when a point's measured clock is more than 5 % away from the
// requested frequency, or "" when it is not. Pure, for tests.
std::string clock_mismatch_note(const std::string& label, double requested_ghz, double measured_ghz);

}  // namespace hpcsens::sweep
