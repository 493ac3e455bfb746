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
