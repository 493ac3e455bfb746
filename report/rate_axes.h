#pragma once
// The rates a sweep can set, as pages and tables show them: one axis per rate a model term is
// built from (model/model_spec.h's term registry), with its words, the unit the user typed, and
// the keys of a record's config that say how the sweep's knob set it. A sweep's pages, tables and
// answer follow the rates it varied (model/rate_variation.h decides which); a rate it held is no
// axis and no legend series, it is shown once as "held at X". Pure functions.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/model_spec.h"
#include "model/rate_variation.h"

namespace hpcsens::report {

struct RateAxis {
  model::Rate rate = model::Rate::none;
  std::string key;        // model JSON and record config key of the stored rate ("net_ns_per_byte")
  std::string shown_key;  // key of the shown value in report JSON ("net_bandwidth_gbs")
  std::string words;      // "network bandwidth"
  std::string unit;       // as shown: "GB/s"
  bool inverse = false;   // shown = 1 / stored (a time per byte shown as the bandwidth the user typed)
  std::vector<std::string> knob_keys;  // config keys of the knob setting that sets the rate
  std::string title() const { return words + " [" + unit + "]"; }
  double shown(double stored) const;
};

// Every rate of the term registry, in registry order. A rate without words here is named by its key.
const std::vector<RateAxis>& rate_axes();
const RateAxis* rate_axis(const std::string& key);  // by stored key; null when unknown

// One rate's role in a sweep (values in shown units, lo <= hi).
struct RateRole {
  const RateAxis* axis = nullptr;
  bool varied = false;
  double lo = 0, hi = 0, median = 0;
};

// From the model's rate_variation (the fit's own rule); a model file without it (older hpcsens)
// from its points: varied when the rate moved by more than model::kMinVariedRange.
std::vector<RateRole> rate_roles(const nlohmann::json& model);
std::vector<RateRole> rate_roles(const std::vector<model::RateVariation>& variations);
std::vector<const RateRole*> varied_roles(const std::vector<RateRole>& roles);

// "network latency 3.1 to 405 us"; "core clock held at 3.51 GHz (measured 3.47 to 3.56 GHz)".
std::string range_text(const RateRole& r);
std::string held_text(const RateRole& r);
// [{rate, shown_key, words, unit, varied, lo, hi, median}] for report JSON.
nlohmann::json roles_json(const std::vector<RateRole>& roles);

// How the sweep's knobs set this rate in a record's config ("lat200" is not it: the knob's own
// values, "+200 us latency"), "" when the config names no knob for it.
std::string knob_setting(const RateAxis& axis, const nlohmann::json& config);

// "3.51 GHz", "0.25 GB/s" (4 significant digits).
std::string shown_value(const RateAxis& axis, double shown);

}  // namespace hpcsens::report
