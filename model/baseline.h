#pragma once
// Which measured configuration the sensitivities and speed-ups are stated at: the machine at full
// speed, chosen by the knobs' settings (highest set clock, least added network delay, highest
// memory setting), never by measured jitter, or the one the user names (`fit --baseline LABEL`).
#include <string>
#include <vector>

#include "model/model_spec.h"

namespace hpcsens::model {

struct BaselineChoice {
  size_t index = 0;
  std::string reason;  // which rule picked it, in words
};

// `label` non-empty: the configuration of that label (InputError naming the labels when none
// has it). Otherwise, rate by rate in the order core clock, network latency, network bandwidth,
// memory bandwidth (each only when the sweep varied it): keep the configurations of the best
// setting, where a setting is the knob's (records of a sweep) or, without knob settings (CSV), all
// measured values within the rate's measurement noise of the best one.
BaselineChoice choose_baseline(const std::vector<Point>& points, const std::string& label = "");

}  // namespace hpcsens::model
