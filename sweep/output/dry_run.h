#pragma once
// `hpcsens sweep --dry-run`: the plan, every knob write and command, the files saved and
// restored; nothing is changed.
#include <string>

#include "sweep/knobs/knobs.h"
#include "sweep/spec/plan.h"
#include "sweep/execute/sweep_options.h"

namespace hpcsens::sweep {

// False when a point's knobs cannot be applied here (each said as a "knob error" line).
bool print_plan(const SweepSpec& spec, const KnobSet& knobs, const Plan& plan, const SweepOptions& opt,
                const std::string& dir);

}  // namespace hpcsens::sweep
