#pragma once
// The end of a sweep: results.csv (one row per finished run, written atomically into the
// checked directory) and the summary table, with plain-words warnings where the numbers need
// care (STREAM arrays near the cache size, a measured clock that is not the requested one).
#include <string>
#include <utility>
#include <vector>

#include "sweep/spec/plan.h"
#include "sweep/journal/session.h"
#include "sweep/spec/spec.h"

namespace hpcsens::sweep {

// Returns "" or the reason results.csv could not be written (naming the file and cause).
std::string write_summary(const SweepSpec& spec, const Plan& plan, const Session& s);

// How far a measured clock may lie from the set (or requested) one before the summary says so:
// 5 %, above the add-chain's own spread and below one P-state step at 2 GHz and up.
inline constexpr double kClockTolerance = 0.05;

// The plain-words warning when a point's measured clock is more than kClockTolerance away from
// the frequency it was set to (`against`: "set", or "requested" where no backend says what was
// set), or "" when it is not. Pure, for tests.
// The warning when the points were set over more than twice the tolerance but every measured
// clock lies within the tolerance: the knob did not move the clock (srun --cpu-freq on a node
// that ignored it, for one). Pairs of (set or requested GHz, measured GHz). Pure, for tests.
std::string clock_did_not_move_note(const std::vector<std::pair<double, double>>& set_measured);

std::string clock_mismatch_note(const std::string& label, double requested_ghz, double measured_ghz,
                                const std::string& against = "requested");

}  // namespace hpcsens::sweep
