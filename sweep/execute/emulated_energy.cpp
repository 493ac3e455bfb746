// Energy of an emulated run, made the way a real run's is: a private powercap tree (zones as the
// kernel names them, energy_uj advancing by P x t and starting again at 0 after
// max_energy_range_uj, each value replacing the file whole) read by energy::Session, the reader
// `hpcsens run` uses, on a clock that follows the emulated time. So the record's section has the
// same form, wraps and all, and says source "emulated".
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include "energy/sampler.h"
#include "sweep/execute/emulated.h"
#include "sweep/execute/emulated_power.h"

namespace hpcsens::sweep {
namespace {

// An emulated run reads its tree every interval_s of emulated time, but at most kMaxTimeSteps
// times (each reading writes and reads every zone's file: a run of 10^4 s at 1 s intervals would
// cost seconds), and in any case twice per wrap of the package counter, up to kMaxWrapSteps.
constexpr double kMaxTimeSteps = 100, kMaxWrapSteps = 1e6;

// tmpfs where there is one (the tree is rewritten at every reading), else the temporary directory.
std::string tree_parent() {
  std::error_code ec;
  if (std::filesystem::is_directory("/dev/shm", ec)) return "/dev/shm";
  return std::filesystem::temp_directory_path().string();
}

std::uint64_t fnv(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

// A powercap tree in a fresh private directory (mkdtemp: 0700, ours), removed when done.
class EmulatedTree {
 public:
  EmulatedTree() {
    std::string tmpl = tree_parent() + "/hpcsens-emulated-powercap-XXXXXX";
    if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("cannot create a directory for the emulated powercap tree");
    root_ = tmpl;
  }
  ~EmulatedTree() {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
  const std::string& root() const { return root_; }

  struct Zone {
    std::string id;
    double watts;
    std::uint64_t value;
    long double done_uj = 0;  // energy written so far (exact sums: each step adds its share)
  };
  void add(const std::string& id, const std::string& name, double watts, std::uint64_t range, std::uint64_t start) {
    const std::string dir = root_ + "/" + id;
    if (::mkdir(dir.c_str(), 0755) != 0) throw std::runtime_error("cannot create " + dir);
    put(dir + "/name", name);
    put(dir + "/max_energy_range_uj", std::to_string(range));
    zones_.push_back({id, watts, start % (range + 1)});
    put(dir + "/energy_uj", std::to_string(zones_.back().value));
  }
  // Every zone at time t: its counter advanced by its power over [0, t], modulo range + 1.
  void advance_to(double t, std::uint64_t range) {
    for (auto& z : zones_) {
      const long double target = std::llround(static_cast<long double>(z.watts) * t * 1e6L);
      const auto step = static_cast<unsigned __int128>(target - z.done_uj);
      z.done_uj = target;
      z.value = static_cast<std::uint64_t>((z.value + step) % (static_cast<unsigned __int128>(range) + 1));
      put(root_ + "/" + z.id + "/energy_uj", std::to_string(z.value));
    }
  }

 private:
  // Written under a fresh name and renamed over the file: a reader never sees half a number.
  static void put(const std::string& path, const std::string& value) {
    const std::string tmp = path + ".new";
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0444);
    if (fd < 0) throw std::runtime_error("cannot write " + tmp);
    const std::string text = value + "\n";
    const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    ::close(fd);
    if (!ok || ::rename(tmp.c_str(), path.c_str()) != 0) throw std::runtime_error("cannot write " + path);
  }
  std::string root_;
  std::vector<Zone> zones_;
};

}  // namespace

EmulatedWatts emulated_run_watts(const Emulation& e, double core_ghz, const std::string& run_id) {
  const EmulatedPower& p = *e.power;
  const double scale = p.noise_pct > 0
                           ? std::max(1.0 + p.noise_pct / 100.0 * emulated_noise(e.seed, run_id + "/power"), 0.01)
                           : 1.0;
  return emulated_watts(p, core_ghz, scale);
}

nlohmann::json emulated_energy_unavailable() {
  return {{"available", false}, {"source", "emulated"}, {"nodes", nlohmann::json::array()},
          {"reason", "not available: emulated run without a power truth (give emulated.power in the spec)"}};
}

nlohmann::json emulated_energy(const EmulatedPower& p, const EmulatedWatts& w, double seconds, const std::string& run_id) {
  const std::uint64_t range = p.max_energy_range_uj;
  EmulatedTree tree;
  const auto start = [&](const char* id) { return fnv(run_id + "/" + id); };  // counters never start at 0
  tree.add("intel-rapl:0", "package-0", w.package, range, start("pkg"));
  tree.add("intel-rapl:0:0", "core", w.core, range, start("core"));
  if (p.uncore) tree.add("intel-rapl:0:1", "uncore", w.uncore, range, start("uncore"));
  if (p.dram_w > 0) tree.add("intel-rapl:0:2", "dram", w.dram, range, start("dram"));
  double now = 0;
  energy::Session session(tree.root(), [&now] { return now; });
  // Readings every interval_s of emulated time, and at least two per wrap of the package counter.
  const double wraps_need = std::ceil(w.package * seconds * 1e6 / (static_cast<double>(range) / 2));
  const double steps = std::max({1.0, std::min(std::ceil(seconds / session.interval_s()), kMaxTimeSteps),
                                 std::min(wraps_need, kMaxWrapSteps)});
  for (double k = 1; k <= steps; ++k) {
    now = seconds * k / steps;
    tree.advance_to(now, range);
    session.sample();
  }
  nlohmann::json node = session.finish();
  node["source"] = "emulated";
  node["reader"] = "powercap";
  node["root"] = "(emulated powercap tree, removed after the run)";
  nlohmann::json s = energy::energy_section({node});
  s["source"] = "emulated";
  s["covers"] = "EMULATED: computed from the spec's power truth (emulated.power) and read back through the "
                "powercap reader; not measured";
  return s;
}

}  // namespace hpcsens::sweep
