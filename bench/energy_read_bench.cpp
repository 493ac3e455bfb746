// Cost of hpcsens run's energy reading at job start and end (issue 31 target: < 1 ms per node):
// the Session constructor (zone discovery + first reading) and finish() (last reading + JSON), on
// a two-socket powercap tree of 6 zones in a temporary directory, and on this host's
// /sys/class/powercap (or its absence). Prints microseconds; not a test.
#include <fmt/core.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

#include "energy/powercap.h"
#include "energy/sampler.h"

namespace {
using clk = std::chrono::steady_clock;

void put(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

std::string make_tree() {
  std::string root = (std::filesystem::temp_directory_path() / "hpcsens-bench-powercap-XXXXXX").string();
  if (::mkdtemp(root.data()) == nullptr) std::exit(1);
  for (const char* z : {"intel-rapl:0", "intel-rapl:0:0", "intel-rapl:0:1", "intel-rapl:1", "intel-rapl:1:0",
                        "intel-rapl:1:1"}) {
    const std::string dir = root + "/" + z, id = z;
    std::filesystem::create_directory(dir);
    put(dir + "/name", id.size() == 12 ? "package-" + id.substr(11) + "\n" : (id.back() == '0' ? "core\n" : "dram\n"));
    put(dir + "/max_energy_range_uj", "262143328850\n");
    put(dir + "/energy_uj", "123456789\n");
  }
  return root;
}

void time_root(const std::string& root, const char* what) {
  std::vector<double> start_us, end_us;
  for (int i = 0; i < 200; ++i) {
    const auto t0 = clk::now();
    hpcsens::energy::Session s(root);
    const auto t1 = clk::now();
    const auto node = s.finish();
    const auto t2 = clk::now();
    start_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    end_us.push_back(std::chrono::duration<double, std::micro>(t2 - t1).count());
  }
  std::sort(start_us.begin(), start_us.end());
  std::sort(end_us.begin(), end_us.end());
  fmt::print("{}: start (discover + first read) median {:.1f} us, p95 {:.1f} us; end (last read + JSON) median "
             "{:.1f} us, p95 {:.1f} us; {}\n",
             what, start_us[100], start_us[190], end_us[100], end_us[190],
             hpcsens::energy::Session(root).available() ? "available" : hpcsens::energy::Session(root).reason());
}
}  // namespace

int main() {
  const std::string tree = make_tree();
  time_root(tree, "fake 2-socket tree, 6 zones (tmpfs/disk files)");
  std::filesystem::remove_all(tree);
  time_root(hpcsens::energy::kDefaultRoot, "this host's /sys/class/powercap");
}
