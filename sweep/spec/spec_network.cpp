// knobs.network: the settings of the preload's network-delay knob (docs/spec-format.md).
#include <cctype>
#include <set>

#include "common/preload_env.h"
#include "sweep/spec/spec.h"
#include "sweep/spec/spec_reader.h"

namespace hpcsens::sweep::spec_detail {
namespace {

// A network name becomes part of point labels and record configs: a plain word.
bool plain_name(const std::string& s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) return false;
  return true;
}

NetworkSetting parse_setting(const Reader& r, const YAML::Node& n, const std::string& fi) {
  r.check_keys(n, fi, {"name", "latency_us", "bandwidth_gbs"});
  NetworkSetting s;
  s.line = n.Mark().line + 1;
  if (!n["name"]) r.fail(n, fi + ".name", "missing (each network setting needs a name)");
  s.name = r.str(n["name"], fi + ".name");
  if (!plain_name(s.name))
    r.fail(n["name"], fi + ".name", "must be 1 to 64 letters, digits, '-', '_' or '.', got '" + s.name + "'");
  if (n["latency_us"]) {
    s.latency_us = r.num(n["latency_us"], fi + ".latency_us");
    if (s.latency_us < 0 || s.latency_us > env::kNetMaxLatencyUs)
      r.fail(n["latency_us"], fi + ".latency_us",
             "must be an added latency in microseconds within [0, 1e6], got " + n["latency_us"].Scalar());
  }
  if (n["bandwidth_gbs"]) {
    s.bandwidth_gbs = r.num(n["bandwidth_gbs"], fi + ".bandwidth_gbs");
    if (s.bandwidth_gbs != 0 &&
        !(s.bandwidth_gbs >= env::kNetMinBandwidthGbs && s.bandwidth_gbs <= env::kNetMaxBandwidthGbs))
      r.fail(n["bandwidth_gbs"], fi + ".bandwidth_gbs",
             "must be 0 (no per-byte delay) or an added link's GB/s within [0.001, 1e6], got " +
                 n["bandwidth_gbs"].Scalar());
  }
  return s;
}

}  // namespace

void parse_network(const Reader& r, const YAML::Node& list, std::vector<NetworkSetting>& out) {
  const std::string f = "knobs.network";
  if (!list.IsSequence() || list.size() == 0)
    r.fail(list, f, "must be a non-empty list of {name, latency_us, bandwidth_gbs}");
  if (list.size() > kMaxTotalRuns)
    r.fail(list, f, "has " + std::to_string(list.size()) + " settings, more than the limit of " +
                        std::to_string(kMaxTotalRuns) + " runs");
  std::set<std::string> names;
  std::set<std::pair<double, double>> values;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string fi = f + "[" + std::to_string(i) + "]";
    NetworkSetting s = parse_setting(r, list[i], fi);
    if (!names.insert(s.name).second) r.fail(list[i]["name"], fi + ".name", "duplicate name '" + s.name + "'");
    if (!values.insert({s.latency_us, s.bandwidth_gbs}).second)
      r.fail(list[i], fi, "the same latency_us and bandwidth_gbs as an earlier setting; each point must differ");
    out.push_back(std::move(s));
  }
}

}  // namespace hpcsens::sweep::spec_detail
