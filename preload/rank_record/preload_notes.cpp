#include "preload/rank_record/preload_notes.h"

#include <algorithm>

#include "common/text_escape.h"
#include "preload/real/missing_symbol.h"

namespace hpcsens::preload {

void add_missing_functions_note(nlohmann::json& notes) {
  const int n = missing_noted();
  if (n == 0) return;
  nlohmann::json names = nlohmann::json::array();
  for (int i = 0; i < std::min(n, kMaxMissingNoted); ++i)
    if (const char* name = missing_name(i)) names.push_back(text::encode_outside(name));
  notes["missing_functions"] = std::move(names);
  if (n > kMaxMissingNoted) notes["missing_functions_dropped"] = n - kMaxMissingNoted;
}

nlohmann::json net_delay_note(const NetDelayState& n, double seconds_per_tick) {
  if (!n.on && n.error.empty()) return nullptr;
  if (!n.on) return {{"applied", false}, {"error", text::encode_outside(n.error)}};
  const NetDelayTotals t = net_delay_totals(seconds_per_tick);
  return {{"applied", true},
          {"requested_s", t.requested_s},
          {"achieved_s", t.achieved_s},
          {"achieved_factor", t.requested_s > 0 ? t.achieved_s / t.requested_s : 1.0},
          {"added_latency_us", n.setting.latency_us},
          {"added_bandwidth_gbs", n.setting.bandwidth_gbs},
          {"added_ns_per_byte", n.setting.ns_per_byte()},
          {"spin_excess_ns", t.spin_excess_ns},
          {"spin_scale", t.spin_scale},
          {"placement", "sender, before the message is handed to MPI; collectives by algorithm"},
          {"nodes", n.nodes},
          {"scope", n.nodes > 1 ? "messages between nodes (the job spans several; a node's own messages are not delayed)"
                                : "every message (one node: the knob stands in for an interconnect)"}};
}

}  // namespace hpcsens::preload
