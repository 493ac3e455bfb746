// The published Cuttlefish core x uncore crosses (Haswell-EP, six OpenMP codes, RAPL package
// energy per point; ../shared/validation-data/cpu-sweeps/PROVENANCE.md, part A) fitted by the
// power model through `hpcsens fit`'s path: how well it describes their power, and whether its
// energy-optimal setting is the measured minimum-energy point. Read from HPCSENS_VALIDATION_DATA,
// never copied here; skipped, naming the path, only when the data are absent.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "model/analysis.h"
#include "model/dataset.h"
#include "tests/model/validation_data.h"

namespace hpcsens::model {
namespace {

struct Published {
  const char* app;
  const char* measured_min;  // the published minimum-energy point
};

TEST(EnergyPublished, CuttlefishCrossesPowerFitAndEnergyOptimum) {
  const Published codes[] = {{"HPCCG", "C2.3_U2.1"}, {"amg", "C2.3_U2.1"},   {"heatIR", "C2.3_U2.1"},
                             {"miniFE", "C2.3_U2.1"}, {"sorIR", "C2.3_U1.2"}, {"uts", "C2.3_U1.2"}};
  std::printf("%-7s %-10s %8s %8s  %-11s %-11s %s\n", "code", "form", "MAPE", "LOOCV", "optimum", "measured",
              "sentence");
  for (const auto& c : codes) {
    const std::string path =
        testing::published_file("cpu-sweeps", std::string("cuttlefish_haswell_e5-2650v3_") + c.app + ".csv");
    REQUIRE_PUBLISHED(path);
    AnalyzeOptions opts;
    opts.model = "cpu+fixed";  // no bandwidth was published: the one-rate model of the core clock
    const ModelReport rep = analyze(load_dataset({path}), opts);
    const EnergyReport& e = rep.energy;
    ASSERT_TRUE(e.available) << c.app << ": " << e.reason;
    EXPECT_EQ(e.domains, "pkg_energy_j");
    EXPECT_EQ(e.power.form, (PowerForm{PowerTerm::fixed, PowerTerm::core_cub, PowerTerm::uncore_lin})) << c.app;
    // The measured minimum, from the data themselves (the table above is the expectation).
    size_t lowest = 0;
    for (size_t i = 0; i < rep.points.size(); ++i)
      if (rep.points[i].energy_j < rep.points[lowest].energy_j) lowest = i;
    EXPECT_EQ(rep.points[lowest].label, c.measured_min) << c.app;
    const std::string chosen = e.points[e.energy_optimal.point].cfg.label;
    std::printf("%-7s %-10s %7.2f%% %7.2f%%  %-11s %-11s %s\n", c.app, "s+c3+u", 100 * e.power.diag.mape,
                100 * e.power.diag.loocv_mape, chosen.c_str(), c.measured_min, e.sentence.c_str());
    EXPECT_LT(e.power.diag.mape, 0.03) << c.app;  // RAPL package power within 3 % on five points
    EXPECT_EQ(chosen, c.measured_min) << c.app;
    // The uncore setting the model calls optimal is never the highest (3.0 GHz) here.
    EXPECT_LT(*e.points[e.energy_optimal.point].cfg.uncore_ghz, 3.0) << c.app;
  }
}

}  // namespace
}  // namespace hpcsens::model
