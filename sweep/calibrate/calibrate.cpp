#include "sweep/calibrate/calibrate.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>
#include <sstream>

#include "sweep/spec/launch_argv.h"
#include "sweep/process/subprocess.h"
#include "sweep/knobs/sysfs_io.h"
#include "sweep/calibrate/net_calibrate.h"

namespace hpcsens::sweep {

std::uint64_t parse_cache_size(const std::string& text) {
  std::size_t pos = 0;
  std::uint64_t v = 0;
  try {
    v = std::stoull(text, &pos);
  } catch (const std::exception&) {
    return 0;
  }
  const char unit = pos < text.size() ? char(std::toupper(text[pos])) : 'B';
  if (unit == 'K') return v << 10;
  if (unit == 'M') return v << 20;
  if (unit == 'G') return v << 30;
  return v;
}

std::uint64_t llc_total_bytes(const std::string& sysfs_root) {
  RealSysfs io;
  int best_level = 0;
  std::uint64_t total = 0;
  std::set<std::string> seen;  // shared_cpu_list of caches already counted
  for (const auto& cpu : list_subdirs(sysfs_root + "/devices/system/cpu", "cpu")) {
    const auto name = cpu.substr(cpu.rfind('/') + 1);
    if (name.size() < 4 || !std::isdigit(static_cast<unsigned char>(name[3]))) continue;
    for (const auto& idx : list_subdirs(cpu + "/cache", "index")) {
      const auto type = io.read(idx + "/type").value_or("Unified");
      if (type == "Instruction") continue;
      const int level = std::atoi(io.read(idx + "/level").value_or("0").c_str());
      const auto size = parse_cache_size(io.read(idx + "/size").value_or(""));
      const auto shared = std::to_string(level) + ":" + io.read(idx + "/shared_cpu_list").value_or(name);
      if (level > best_level) {
        best_level = level;
        total = 0;
        seen.clear();
      }
      if (level == best_level && seen.insert(shared).second) total += size;
    }
  }
  return total;
}

std::uint64_t mem_available_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::uint64_t kb;
  std::string unit;
  while (in >> key >> kb >> unit)
    if (key == "MemAvailable:") return kb << 10;
  return 0;
}

ArraySize stream_array_size(const Calibration& c, std::uint64_t llc_bytes, std::uint64_t mem_available) {
  ArraySize a;
  if (c.stream_array_mb) {
    a.bytes = std::uint64_t(*c.stream_array_mb * 1048576.0);
    a.meets_4x_llc = llc_bytes > 0 && a.bytes >= 4 * llc_bytes;
    if (!a.meets_4x_llc) a.note = "calibration.stream_array_mb is below 4x the last-level cache";
    return a;
  }
  const std::uint64_t fallback = 256ull << 20;  // when sysfs has no cache description
  a.bytes = llc_bytes > 0 ? 4 * llc_bytes : fallback;
  a.meets_4x_llc = llc_bytes > 0;
  if (llc_bytes == 0) a.note = "last-level cache size unknown; used 256 MiB arrays";
  if (mem_available > 0 && 3 * a.bytes > mem_available / 4) {
    a.bytes = mem_available / 12;
    a.meets_4x_llc = llc_bytes > 0 && a.bytes >= 4 * llc_bytes;
    a.note = "capped to a quarter of available memory (LLC reported as " +
             std::to_string(llc_bytes >> 20) + " MiB)";
  }
  return a;
}

nlohmann::json parse_calibrator_output(const std::string& out) {
  std::istringstream in(out);
  std::string line;
  nlohmann::json found;
  while (std::getline(in, line)) {
    const auto b = line.find('{');
    if (b == std::string::npos) continue;
    auto j = nlohmann::json::parse(line.substr(b), nullptr, false);
    if (!j.is_discarded() && j.is_object()) found = j;
  }
  if (found.is_null()) throw std::runtime_error("the calibrator printed no result line");
  return found;
}

std::optional<double> nominal_ghz(const std::string& sysfs_root) {
  RealSysfs io;
  if (auto v = io.read(sysfs_root + "/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq")) {
    try {
      return std::stod(*v) / 1e6;
    } catch (const std::exception&) {
    }
  }
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("cpu MHz", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return std::stod(line.substr(colon + 1)) / 1e3;
    }
  return std::nullopt;
}

CalibrationRun calibrate(const SweepSpec& spec, const std::vector<std::string>& launcher,
                         const std::string& stream_exe, std::optional<double> requested_ghz,
                         std::optional<double> set_ghz, const volatile std::sig_atomic_t* stop_flag) {
  CalibrationRun r;
  const Calibration& c = spec.calibration;
  const double timeout = std::max(120.0, spec.timeout_s);
  auto& cfg = r.config;
  if (requested_ghz) cfg["cpu_ghz_requested"] = *requested_ghz;

  std::optional<double> measured_ghz;
  if (c.stream || c.clock) {
    const auto llc = llc_total_bytes(spec.sysfs_root);
    const auto size = stream_array_size(c, llc, mem_available_bytes());
    std::vector<std::string> argv = launcher;
    argv.push_back(stream_exe);
    argv.insert(argv.end(), {"--array-bytes", std::to_string(size.bytes), "--ntimes",
                             std::to_string(c.stream ? c.stream_ntimes : 2)});
    if (c.clock) argv.push_back("--clock");
    const auto child = run_child(argv, timeout, true, stop_flag);
    if (!child.error.empty() || child.exit_status != 0) {
      r.error = "calibration failed (" + (child.error.empty() ? "exit status " + std::to_string(child.exit_status)
                                                              : child.error) + "): " + shell_join(argv);
      return r;
    }
    nlohmann::json out;
    try {
      out = parse_calibrator_output(child.out);
    } catch (const std::exception& e) {
      r.error = e.what();
      return r;
    }
    if (c.stream) {
      cfg["mem_gbs"] = out.at("triad_gbs");
      cfg["mem_gbs_source"] = "stream-triad";
      cfg["stream"] = {{"ranks", out.value("ranks", 0)},
                       {"array_bytes", size.bytes},
                       {"array_bytes_per_rank", out.value("array_bytes_per_rank", 0)},
                       {"llc_bytes", llc},
                       {"meets_4x_llc", size.meets_4x_llc},
                       {"ntimes", c.stream_ntimes}};
      if (!size.note.empty()) cfg["stream"]["note"] = size.note;
    }
    if (c.clock && out.contains("clock_ghz")) {
      const double lo = out.value("clock_ghz_min", 0.0), hi = out.value("clock_ghz_max", 0.0);
      cfg["cpu_ghz_measured"] = out["clock_ghz"];
      // Ranks that disagree by more than 10 % were sharing cores: the number is not a clock.
      if (hi > 0 && (hi - lo) / hi <= 0.10) measured_ghz = out["clock_ghz"].get<double>();
      else cfg["cpu_ghz_measured_note"] = "ranks disagree by more than 10%; not used as the clock";
      cfg["cpu_ghz_measured_min"] = out.value("clock_ghz_min", 0.0);
      cfg["cpu_ghz_measured_max"] = out.value("clock_ghz_max", 0.0);
      cfg["cpu_clock_method"] = out.value("clock_method", "add-chain");  // cycles, add-chain or mixed
      cfg["cpu_ghz_method"] = out.value("clock_method_detail", "add-chain cycles per thread CPU time");
    }
  }
  if (measured_ghz) {
    cfg["cpu_ghz"] = *measured_ghz;
    cfg["cpu_ghz_source"] = "measured";
  } else if (set_ghz) {
    cfg["cpu_ghz"] = *set_ghz;
    cfg["cpu_ghz_source"] = "set";
  } else if (requested_ghz) {
    cfg["cpu_ghz"] = *requested_ghz;
    cfg["cpu_ghz_source"] = "requested";
  } else if (auto n = nominal_ghz(spec.sysfs_root)) {
    cfg["cpu_ghz"] = *n;
    cfg["cpu_ghz_source"] = "nominal";
  }
  if (c.network.value_or(!spec.network.empty())) {
    const auto net = calibrate_network(launcher, stream_exe, timeout, stop_flag, &r.error);
    for (auto it = net.begin(); it != net.end(); ++it) cfg[it.key()] = it.value();
    if (!r.error.empty()) return r;
  }
  if (c.latency) {
    const auto llc = llc_total_bytes(spec.sysfs_root);
    const auto size = stream_array_size(c, llc, mem_available_bytes());
    const auto child = run_child({stream_exe, "--latency-only", "--latency-bytes", std::to_string(size.bytes)},
                                 timeout, true, stop_flag);
    if (child.exit_status == 0) {
      try {
        cfg["lat_ns"] = parse_calibrator_output(child.out).at("lat_ns");
      } catch (const std::exception& e) {
        r.error = std::string("latency probe: ") + e.what();
      }
    } else {
      r.error = "latency probe failed: " + (child.error.empty() ? "exit " + std::to_string(child.exit_status) : child.error);
    }
  }
  return r;
}

}  // namespace hpcsens::sweep
