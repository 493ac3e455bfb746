#pragma once
// Names of call-site frames kept in the record (issue 29 item 7). `hpcsens run` resolves them right
// after the job, while the objects that ran are still in place, and stores them in each frame; the
// report resolves a frame itself only when the record has no names for it, and only from a module
// whose GNU build-id is the one the rank recorded (ranks[].callsite_build_ids), so a program
// rebuilt or replaced since the run is never read for names it does not hold.
#include <string>

#include <nlohmann/json.hpp>

#include "report/symbolize.h"

namespace hpcsens::report {

// Adds function, file, line (and inlined_into) to every frame of every rank's callsites that has a
// module and no names yet (a site and each entry of its `callers`). Frames whose module's build-id
// differs from the recorded one are left unnamed. Never throws on a malformed record (the report
// names its faults later).
void name_callsites(nlohmann::json& record);

// One frame ({module, offset[, function, file, line, inlined_into]}) for the report: the stored
// names, else resolved now when the module at that path is the one that ran; else a location
// whose `problem` says "unresolved: the program at PATH is not the one that ran".
SourceLocation frame_location(const nlohmann::json& frame, const nlohmann::json& build_ids, Symbolizer& symbols);

}  // namespace hpcsens::report
