#include "sweep/clock_watch.h"

#include "sweep/summary.h"

namespace hpcsens::sweep {

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
