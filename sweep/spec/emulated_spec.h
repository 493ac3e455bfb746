#pragma once
// Parsing of the emulated launcher's realism fields (docs/spec-format.md, "emulated").
#include <set>
#include <string>

#include "sweep/spec/spec_reader.h"

namespace hpcsens::sweep::spec_detail {

// The field names parse_emulated_realism reads, for the `emulated:` mapping's key check.
const std::set<std::string>& emulated_realism_keys();

// Reads the optional realism fields of the `emulated:` mapping n; errors name file, line and field.
void parse_emulated_realism(const Reader& r, const YAML::Node& n, EmulatedRealism& m);

}  // namespace hpcsens::sweep::spec_detail
