// knobs.network: the preload's network-delay knob. Nothing on the machine changes: the point's
// added latency and per-byte time reach the ranks of that one run through their environment
// (common/preload_env.h), so there is nothing to save or restore, and a sweep killed mid-run
// leaves no delay behind for the next job.
#include <fmt/core.h>

#include "common/preload_env.h"
#include "sweep/knobs/knob_backend.h"

namespace hpcsens::sweep {
namespace {

// The shortest text that reads back as the same double ("0.1", not "0.10000000000000001").
std::string env_number(double v) { return fmt::format("{}", v); }

class NetworkBackend : public KnobBackend {
 public:
  explicit NetworkBackend(const SweepSpec& spec) : spec_(spec) {}
  std::string name() const override { return "network"; }
  std::string describe() const override {
    return "network: " + std::to_string(spec_.network.size()) +
           " settings (delay added by the preload to every message)";
  }
  std::vector<std::pair<std::string, std::string>> rank_env(const Point& p) const override {
    if (!p.network) return {};
    const NetworkSetting& n = spec_.network[std::size_t(*p.network)];
    return {{env::kNetLatencyUs, env_number(n.latency_us)}, {env::kNetBandwidthGbs, env_number(n.bandwidth_gbs)}};
  }

 private:
  const SweepSpec& spec_;
};

}  // namespace

std::unique_ptr<KnobBackend> make_network_backend(const SweepSpec& spec, const SysfsIo&) {
  if (spec.network.empty()) return nullptr;
  return std::make_unique<NetworkBackend>(spec);
}

}  // namespace hpcsens::sweep
