#pragma once
// Notes the preload adds to its record (under "preload"): the functions the program called that no
// loaded library defines, and what the network-delay knob really did. Built at finalize or abort,
// never in the per-call path.
#include <nlohmann/json.hpp>

#include "preload/account/net_delay.h"

namespace hpcsens::preload {

// Adds `missing_functions` (and `missing_functions_dropped`) to notes when any call found no
// real function (real/missing_symbol.h); nothing otherwise.
void add_missing_functions_note(nlohmann::json& notes);

// What rank 0 applied (every rank reads the same variables) and how long its delays really
// took: on a loaded machine a spinning rank that loses its core comes back late, and the sweep
// scales the added rates by that factor. null when the knob was not set.
nlohmann::json net_delay_note(const NetDelayState& n, double seconds_per_tick);

}  // namespace hpcsens::preload
