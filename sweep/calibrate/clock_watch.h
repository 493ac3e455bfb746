#pragma once
// The check, during the sweep, that the clock knob took effect on the node: as soon as the
// first point's clock is measured it is compared with the clock it was set to, and as soon as
// two points set apart are measured, their clocks must differ too. Said once each, loudly, at
// the time (the end-of-sweep summary says it again): a sweep whose knob does nothing (srun
// --cpu-freq ignored, a driver without a working governor, a VM) should not run for hours
// before anyone is told. Pure, for tests; the executor feeds it each point's calibration.
#include <string>
#include <utility>
#include <vector>

namespace hpcsens::sweep {

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


class ClockWatch {
 public:
  // One point's set (or requested) and measured clock, in GHz. Returns the warning to give now,
  // or "" (nothing wrong, or already said).
  std::string add(const std::string& label, double set_ghz, double measured_ghz);

 private:
  std::vector<std::pair<double, double>> seen_;
  bool said_first_ = false, said_flat_ = false;
};

}  // namespace hpcsens::sweep
