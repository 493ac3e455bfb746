#include "model/knob_design.h"

#include <algorithm>
#include <set>
#include <string>

namespace hpcsens::model {
namespace {

std::string value_text(const nlohmann::json& config, const char* key) {
  if (!config.contains(key) || config.at(key).is_null()) return "";
  return config.at(key).dump();
}

double number_or_zero(const nlohmann::json& config, const char* key) {
  return config.contains(key) && config.at(key).is_number() ? config.at(key).get<double>() : 0.0;
}

}  // namespace

const std::string& setting_key(Rate r, const KnobSetting& k) {
  switch (r) {
    case Rate::cpu_ghz: return k.cpu;
    case Rate::net_latency_us:
    case Rate::net_ns_per_byte: return k.net;
    default: return k.mem;
  }
}

KnobSetting knob_setting_of(const nlohmann::json& config) {
  KnobSetting k;
  if (!config.is_object() || !config.contains("sweep_point")) return k;
  k.known = true;
  k.cpu = value_text(config, "cpu_ghz_requested");
  for (const char* key : {"memory_config", "mem_bw_requested", "uncore_min_ghz", "uncore_max_ghz"})
    if (std::string v = value_text(config, key); !v.empty()) k.mem += std::string(key) + "=" + v + ";";
  k.net = value_text(config, "net_config");
  k.net_added_latency_us = number_or_zero(config, "net_added_latency_us");
  const double bw = number_or_zero(config, "net_added_bandwidth_gbs");
  k.net_added_ns_per_byte = bw > 0 ? 1.0 / bw : 0.0;  // 1 GB/s = 1 ns per byte
  return k;
}

std::optional<bool> design_varied(Rate r, const std::vector<Point>& points) {
  if (points.empty()) return std::nullopt;
  bool any_knob = false;
  std::set<std::string> settings;
  for (const auto& p : points) {
    if (!p.knobs.known) return std::nullopt;
    any_knob = any_knob || !p.knobs.cpu.empty() || !p.knobs.mem.empty() || !p.knobs.net.empty();
    settings.insert(setting_key(r, p.knobs));
  }
  if (!any_knob) return std::nullopt;
  return settings.size() > 1;
}

}  // namespace hpcsens::model
