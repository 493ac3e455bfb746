#pragma once
// Where a sweep point's energy comes from (issue 31): a run record's `energy` section (package
// joules summed over its measured nodes' sockets, plus DRAM where the node has a DRAM zone;
// docs/record-format.md, "energy") and the uncore clock its sweep set; a fit CSV's energy_j or
// pkg_energy_j and uncore_ghz columns. Repetitions are combined by median, like the times.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/dataset.h"

namespace hpcsens::model {

// Fills o.energy_j, o.power_w (joules / the reader's span) and o.energy_domains from the record's
// energy section, or o.energy_reason (the record's own reason) when it has none; o.uncore_ghz from
// config.uncore_max_ghz_set, else _requested, else uncore_max_ghz. Throws InputError naming the
// file and field for a section whose figures have the wrong type.
void read_record_energy(const nlohmann::json& config, const nlohmann::json& extra, const std::string& path,
                        Observation& o);

// One configuration's observations -> its point's energy fields (median power, median energy,
// median uncore clock); the first observation's reason when any repetition lacks energy.
void combine_energy(const std::vector<const Observation*>& runs, Point& p);

}  // namespace hpcsens::model
