#pragma once
// The "callsites" array of a rank in the run record (docs/record-format.md), built at finalize
// from callsites.h's table: each return address as the module it lies in (this process's own load
// map) and its offset in that module's ELF address space, which report/symbolize.h resolves.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace hpcsens::preload {

// [{call, module, offset, count, seconds, bytes, min/max_seconds, min/max_bytes[, callers]}], most
// time first; null when the table is off. `build_ids` (if given) gets {module path: GNU build-id
// hex} of every module a frame lies in, read from the loaded objects' notes.
nlohmann::json callsites_json(double seconds_per_tick, nlohmann::json* build_ids = nullptr);

}  // namespace hpcsens::preload
