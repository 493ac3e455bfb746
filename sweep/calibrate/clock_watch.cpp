#include "sweep/calibrate/clock_watch.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace hpcsens::sweep {

std::string clock_mismatch_note(const std::string& label, double requested_ghz, double measured_ghz,
                                const std::string& against) {
  if (!(requested_ghz > 0) || !(measured_ghz > 0)) return "";
  const double off = (measured_ghz - requested_ghz) / requested_ghz;
  if (std::fabs(off) <= kClockTolerance) return "";
  return fmt::format("warning: at {} the cores ran at {:.2f} GHz (measured), not the {} {:g} GHz ({:+.0f}%): "
                     "the frequency setting did not hold (turbo, a power or thermal cap, or another tool changing it); "
                     "the records carry the measured clock",
                     label, measured_ghz, against, requested_ghz, off * 100);
}

std::string clock_did_not_move_note(const std::vector<std::pair<double, double>>& set_measured) {
  double set_lo = 1e300, set_hi = 0, got_lo = 1e300, got_hi = 0;
  for (const auto& [set, got] : set_measured) {
    if (!(set > 0) || !(got > 0)) continue;
    set_lo = std::min(set_lo, set), set_hi = std::max(set_hi, set);
    got_lo = std::min(got_lo, got), got_hi = std::max(got_hi, got);
  }
  if (set_hi <= 0 || (set_hi - set_lo) / set_hi <= 2 * kClockTolerance || (got_hi - got_lo) / got_hi > kClockTolerance)
    return "";
  return fmt::format("warning: the core clock did not move: the points were set from {:g} to {:g} GHz but every "
                     "measured clock lies within {:.2f}-{:.2f} GHz; the frequency knob did not take effect (Slurm "
                     "without a cpufreq plugin, a driver that ignored it, a VM); the fit cannot see a clock effect",
                     set_lo, set_hi, got_lo, got_hi);
}


std::string ClockWatch::add(const std::string& label, double set_ghz, double measured_ghz) {
  if (!(set_ghz > 0) || !(measured_ghz > 0)) return "";
  seen_.push_back({set_ghz, measured_ghz});
  std::string out;
  if (seen_.size() == 1 && !said_first_) {
    said_first_ = true;
    out = clock_mismatch_note(label, set_ghz, measured_ghz, "set");
  }
  if (!said_flat_) {
    const auto flat = clock_did_not_move_note(seen_);
    if (!flat.empty()) {
      said_flat_ = true;
      out += (out.empty() ? "" : "\n") + flat;
    }
  }
  return out;
}

}  // namespace hpcsens::sweep
