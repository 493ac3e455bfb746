#pragma once
// libpfm4's perf_event encoding of event names for a PMU model this machine need not have:
// LIBPFM_FORCE_PMU is read by pfm_initialize(), so each PMU is encoded in a forked child.
#include <map>
#include <string>
#include <vector>

namespace hpcsens::testing {

// Encodes "<pmu>::<event>" for each event. Returns the failures as text ("" when every event
// encoded); `configs`, when given, receives each encoded event's perf_event_attr.config.
std::string pfm_encode_all(const std::string& pmu, const std::vector<std::string>& events,
                           std::map<std::string, unsigned long long>* configs = nullptr);

}  // namespace hpcsens::testing
