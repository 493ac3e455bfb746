// Speed of `hpcsens predict --mix` (prints figures; target: 20 applications over 50 candidate
// systems in under 1 s): reading the mix and its 20 model files, 1,000 predictions with fit and
// overlap intervals (two GLPK programs each), ranking and the JSON output. Models are fitted
// once to generated data (the tests' ground-truth generator) before timing.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "model/mix.h"
#include "model/model_json.h"
#include "tests/model/ground_truth.h"

namespace hm = hpcsens::model;
namespace fs = std::filesystem;

namespace {

struct MixFiles {
  fs::path dir;
  std::vector<hm::SystemSpec> systems;
  MixFiles() : dir(fs::temp_directory_path() / ("hpcsens_mix_bench_" + std::to_string(::getpid()))) {
    fs::create_directories(dir);
    std::string mix = "applications:\n";
    for (int a = 0; a < 20; ++a) {
      hm::Dataset d;
      const hm::testing::Truth t{10.0 + a, 200.0 + 40 * a, 0.5 + 0.1 * a};
      d.points = hm::testing::generate_points(t, hm::testing::acceptance_grid(), {0.01, 100u + a, 1});
      hm::AnalyzeOptions o;
      o.model = "cpu+mem+io";
      const std::string name = "app" + std::to_string(a) + ".model.json";
      std::ofstream(dir / name) << hm::to_json(hm::analyze(d, o)).dump();
      mix += "  - {name: app" + std::to_string(a) + ", model: " + name + ", weight: " + std::to_string(1 + a % 3) + "}\n";
    }
    std::ofstream(dir / "mix.yaml") << mix;
    for (int s = 0; s < 50; ++s) {
      hm::SystemSpec sys;
      sys.name = "sys" + std::to_string(s);
      sys.cpu_ghz = 1.6 + 0.03 * s;
      sys.mem_gbs = 20 + 0.8 * s;
      sys.nodes = 100 + s, sys.price = 1e6 + 1e4 * s, sys.power_w = 3e5 + 2e3 * s;
      systems.push_back(sys);
    }
  }
  ~MixFiles() { fs::remove_all(dir); }
};

void BM_Mix20AppsOver50Systems(benchmark::State& state) {
  static MixFiles files;
  for (auto _ : state) {
    const hm::Mix mix = hm::load_mix((files.dir / "mix.yaml").string());
    const hm::MixResult r = hm::evaluate_mix(mix, files.systems);
    benchmark::DoNotOptimize(hm::render_mix(r, "json"));
  }
  state.counters["predictions"] = 20 * 50;
}
BENCHMARK(BM_Mix20AppsOver50Systems)->Iterations(5)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
