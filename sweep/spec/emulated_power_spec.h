#pragma once
// Parsing of the emulated launcher's power truth (`emulated.power`, docs/spec-format.md).
#include "sweep/spec/spec_reader.h"

namespace hpcsens::sweep::spec_detail {

// Reads the `emulated.power` mapping n; errors name file, line and field.
EmulatedPower parse_emulated_power(const Reader& r, const YAML::Node& n);

// Once the grid is known: the core's unset min_ghz / max_ghz become the sweep's lowest / highest
// cpu_ghz, and the range is checked (min below max, or equal for a one-clock sweep).
void resolve_emulated_power(const Reader& r, const YAML::Node& root, SweepSpec& s);

}  // namespace hpcsens::sweep::spec_detail
