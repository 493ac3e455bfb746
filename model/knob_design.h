#pragma once
// Which rates the sweep's design varied, from the knob settings its records carry. A measured rate
// can move between configurations by noise alone (STREAM on a loaded machine, a ping-pong on a
// shared host): a term fed by that would report a sensitivity nobody measured, and the slowest
// jitter would pick the baseline. When every configuration says what its knobs set, a rate whose
// knobs held one setting was not varied, however much its measurement moved.
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/model_spec.h"

namespace hpcsens::model {

// The knob settings in a record's config (known when it has a sweep_point).
KnobSetting knob_setting_of(const nlohmann::json& config);

// Whether the knobs behind rate `r` took more than one setting across `points` (cpu: the clock
// knob; mem_gbs and lat_ns: memory configuration, bandwidth allocation and uncore clock; the
// network rates: the network knob). nullopt when the design is unknown: some configuration has no
// knob settings, or none sets any knob (a sweep of repetitions only).
std::optional<bool> design_varied(Rate r, const std::vector<Point>& points);

// The setting of the knobs behind rate `r` at one configuration, as a key ("" when none is set).
const std::string& setting_key(Rate r, const KnobSetting& k);

}  // namespace hpcsens::model
