#include "sweep/calibrate/net_calibrate.h"

#include "sweep/calibrate/calibrate.h"
#include "sweep/spec/launch_argv.h"
#include "sweep/process/subprocess.h"

namespace hpcsens::sweep {

nlohmann::json calibrate_network(const std::vector<std::string>& launcher, const std::string& stream_exe,
                                 double timeout_s, const volatile std::sig_atomic_t* stop_flag, std::string* error) {
  std::vector<std::string> argv = launcher;
  argv.insert(argv.end(), {stream_exe, "--network"});
  const auto child = run_child(argv, timeout_s, true, stop_flag);
  if (!child.error.empty() || child.exit_status != 0) {
    *error = "network calibration failed (" +
             (child.error.empty() ? "exit status " + std::to_string(child.exit_status) : child.error) +
             "): " + shell_join(argv);
    return nlohmann::json::object();
  }
  nlohmann::json out;
  try {
    out = parse_calibrator_output(child.out);
  } catch (const std::exception& e) {
    *error = std::string("network calibration: ") + e.what();
    return nlohmann::json::object();
  }
  nlohmann::json cfg = {{"net_measured", out}};
  // The slowest link the job uses is the one a slower network would slow.
  for (const char* where : {"inter", "intra"}) {
    const std::string lat = std::string("latency_us_") + where, bw = std::string("bandwidth_gbs_") + where;
    if (out.contains(lat) && out.contains(bw) && out[lat].is_number() && out[bw].is_number()) {
      cfg["net_base_latency_us"] = out[lat];
      cfg["net_base_bandwidth_gbs"] = out[bw];
      cfg["net_base_link"] = std::string(where) + "-node";
      break;
    }
  }
  return cfg;
}

double achieved_factor(const nlohmann::json& preload_section) {
  if (!preload_section.is_object() || !preload_section.contains("net_delay")) return 1.0;
  const auto& n = preload_section.at("net_delay");
  if (!n.is_object() || !n.contains("achieved_factor") || !n.at("achieved_factor").is_number()) return 1.0;
  const double f = n.at("achieved_factor").get<double>();
  // A spin never ends early; a factor outside [1, 100] is not a measurement of this knob.
  return f >= 1.0 && f <= 100.0 ? f : 1.0;
}

void add_network_rates(nlohmann::json& config, double factor) {
  if (!config.contains("net_added_latency_us")) return;
  auto num = [&](const char* key) {
    return config.contains(key) && config[key].is_number() ? config[key].get<double>() : 0.0;
  };
  const double base_lat = num("net_base_latency_us"), base_bw = num("net_base_bandwidth_gbs");
  const double add_lat = num("net_added_latency_us"), add_bw = num("net_added_bandwidth_gbs");
  config["net_delay_achieved_factor"] = factor;
  // The added delay alone is not the network's rate: a point with nothing added would have rate
  // 0, and the relative range of the rates (the varied-rate rule) would mean nothing.
  if (!(base_lat > 0 && base_bw > 0)) {
    config["net_rates_source"] =
        "none: the network was not measured (calibration.network off or failed), so no network term can be fitted";
    return;
  }
  config["net_latency_us"] = base_lat + add_lat * factor;
  config["net_ns_per_byte"] = 1.0 / base_bw + (add_bw > 0 ? factor / add_bw : 0.0);
  config["net_rates_source"] = "measured base + added by the knob";
}

}  // namespace hpcsens::sweep
