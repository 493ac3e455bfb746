#pragma once
// The "callsites" array of a rank in the run record (docs/record-format.md), built at finalize
// from callsites.h's table: each return address as the module it lies in (this process's own load
// map) and its offset in that module's ELF address space, which report/symbolize.h resolves.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace hpcsens::preload {

// The loaded object holding `address` and the address in that object's ELF addresses (minus its
// load bias); false when no loaded object holds it. The main program's path comes from
// /proc/self/exe.
bool module_of(std::uintptr_t address, std::string* path, std::uintptr_t* offset);

// [{call, module, offset, count, seconds, bytes}], most time first; null when the table is off.
nlohmann::json callsites_json(double seconds_per_tick);

}  // namespace hpcsens::preload
