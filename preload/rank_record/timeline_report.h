#pragma once
// The "timeline" object of a rank in the run record (docs/record-format.md), built once at
// finalize from the fixed bins of timeline.h (allocation is fine here).
#include <nlohmann/json.hpp>

#include "preload/account/timeline.h"

namespace hpcsens::preload {

// Bins of `t` in seconds from its start (t1 of McCalpin's method): bin_s, bins, compute_s,
// mpi_s, io_s (arrays of `bins`), calls (the dominant calls' names) and top_mpi (an index into
// calls, -1 for no MPI in the bin), marks ({t_s, phase}) and marks_dropped. `region_name` gives a
// mark's phase name.
nlohmann::json timeline_json(const Timeline& t, double seconds_per_tick, const char* (*region_name)(int));

}  // namespace hpcsens::preload
