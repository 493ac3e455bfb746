// Judgement through the real binary: a jittered rate held constant in every output format, and
// an extrapolated prediction marked, widened and not ok (issue 16).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/model/cli_fixture.h"

namespace hpcsens::model {
namespace {

// A core-only sweep as the sweep's results.csv records it: STREAM measured at every point moves
// by up to +/-1.5 % (it was never varied).
std::string core_only_rows() {
  std::string text = "label,cpu_ghz,mem_gbs,time_s\n";
  const double jitter[] = {0.4, -1.2, 1.5, -0.3, 0.9, -1.5, 0.1, 1.1, -0.8, 0.6};
  for (int i = 0; i < 10; ++i) {
    const double f = 1.2 + 0.2 * i, mem = 100 * (1 + jitter[i] / 100);
    text += "f" + std::to_string(i) + "," + std::to_string(f) + "," + std::to_string(mem) + "," +
            std::to_string(24 / f + 3.0 * (1 + 0.003 * ((i * 7) % 5 - 2))) + "\n";
  }
  return text;
}

TEST_F(CliTest, JitteredStreamIsHeldConstantInEveryFormat) {
  const std::string csv = file("core.csv", core_only_rows());
  const auto table = run("fit " + csv);
  ASSERT_EQ(table.exit_status, 0) << table.err;
  EXPECT_NE(table.out.find("model cpu+fixed"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("mem_gbs moved only"), std::string::npos) << table.out;
  EXPECT_EQ(table.out.find("memory bandwidth saves"), std::string::npos) << table.out;
  const auto md = run("fit " + csv + " --format md");
  EXPECT_NE(md.out.find("memory bandwidth was not varied by this sweep"), std::string::npos) << md.out;
  const auto js = run("fit " + csv + " --format json");
  ASSERT_EQ(js.exit_status, 0) << js.err;
  const auto j = nlohmann::json::parse(js.out);
  ASSERT_EQ(j["rate_variation"].size(), 2u);
  EXPECT_EQ(j["rate_variation"][1]["rate"], "mem_gbs");
  EXPECT_EQ(j["rate_variation"][1]["varied"], false);
  EXPECT_EQ(j["rate_variation"][1]["noise_from"], "floor");
  for (const auto& e : j["elasticities"]) EXPECT_NE(e["rate"], "mem_gbs");
  const auto rates = run("fit " + csv + " --format csv --table rates");
  ASSERT_EQ(rates.exit_status, 0) << rates.err;
  EXPECT_EQ(rates.out.rfind("rate,varied,", 0), 0u) << rates.out;
  EXPECT_NE(rates.out.find("\nmem_gbs,false,"), std::string::npos) << rates.out;
  EXPECT_NE(rates.out.find("treated as constant"), std::string::npos) << rates.out;
  // An explicit two-rate model is refused, naming the rate and pointing to the one-rate model.
  const auto two = run("fit " + csv + " --model cpu+mem");
  EXPECT_EQ(two.exit_status, 2);
  EXPECT_NE(two.err.find("within its measurement noise"), std::string::npos) << two.err;
}

TEST_F(CliTest, PredictionFarOutsideTheMeasuredRangeIsMarkedWidenedAndNotOk) {
  std::string text = "label,cpu_ghz,mem_gbs,time_s\n";
  for (const auto& p : testing::generate_points({24, 600, 1}, testing::grid({1.2, 1.8, 2.4, 3.0}, {60, 90, 120}),
                                                {0.005, 3, 1}))
    text += p.label + "," + std::to_string(p.cpu_ghz) + "," + std::to_string(p.mem_gbs) + "," +
            std::to_string(p.time_s) + "\n";
  const auto fit = run("fit " + file("two.csv", text) + " -o " + path("m.json"));
  ASSERT_EQ(fit.exit_status, 0) << fit.err;
  const auto js = run("predict " + path("m.json") + " --cpu-ghz 9.5 --mem-gbs 20000 --format json");
  ASSERT_EQ(js.exit_status, 0) << js.err;
  const auto p = nlohmann::json::parse(js.out)["predictions"][0];
  EXPECT_EQ(p["extrapolated"], true);
  EXPECT_EQ(p["verdict"], "unreliable");
  EXPECT_EQ(p["interval_method"], "jackknife");
  EXPECT_GT(p["fit_high_s"].get<double>() - p["fit_low_s"].get<double>(),
            1.5 * (p["covariance_high_s"].get<double>() - p["covariance_low_s"].get<double>()));
  const auto table = run("predict " + path("m.json") + " --cpu-ghz 9.5 --mem-gbs 20000");
  EXPECT_NE(table.out.find("EXTRAPOLATED"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("verdict unreliable"), std::string::npos) << table.out;
}

}  // namespace
}  // namespace hpcsens::model
