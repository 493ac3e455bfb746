// The model page's energy section, read back from what headless Chromium drew: a real emulated
// sweep with a power truth (examples/sweeps/emulated_energy.yaml) through `hpcsens sweep`,
// `hpcsens fit` and `hpcsens report --format html`. Every point of the energy-against-time chart,
// the Pareto front and each chosen configuration equal the model JSON, and the page says the
// JSON's answer sentence word for word. The sweep page's runs table has the energy columns.
// Screenshots land in HPCSENS_SCREENSHOTS for a person to look at.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include "chromium_page.h"
#include "process.h"

namespace hpcsens::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
const std::string kHpcsens = HPCSENS_BIN;

class EnergyPage : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("hpcsens-energy-page-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "profile");
    auto r = run_process({kHpcsens, "sweep", HPCSENS_ENERGY_SPEC, "-o", (dir_ / "sweep").string()}, 300);
    ASSERT_EQ(r.exit_status, 0) << r.err;
    r = run_process({kHpcsens, "fit", (dir_ / "sweep" / "records").string(), "--max-slowdown", "12%", "-o",
                     (dir_ / "model.json").string()}, 120);
    ASSERT_EQ(r.exit_status, 0) << r.err;
    std::ifstream in(dir_ / "model.json");
    model_ = json::parse(in);
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }

  // The page of `input`, its DOM after the script ran (no error, every chart drawn), a screenshot.
  static std::string page_dom(const fs::path& input, const std::string& name) {
    const auto page = dir_ / (name + ".html");
    auto r = run_process({kHpcsens, "report", input.string(), "--format", "html", "-o", page.string()}, 120);
    EXPECT_EQ(r.exit_status, 0) << r.err;
    const auto dom = dump_dom(dir_ / "profile", page);
    EXPECT_EQ(dom.exit_status, 0) << dom.err;
    EXPECT_EQ(body_attribute(dom.out, "data-script-errors"), 0) << dom.err;
    EXPECT_EQ(body_attribute(dom.out, "data-charts"), body_attribute(dom.out, "data-charts-expected"));
    fs::create_directories(HPCSENS_SCREENSHOTS);
    auto argv = chromium(dir_ / "profile");
    argv.push_back("--window-size=1200,2400");
    argv.push_back("--screenshot=" + (fs::path(HPCSENS_SCREENSHOTS) / (name + ".png")).string());
    argv.push_back("file://" + page.string());
    EXPECT_EQ(run_process(argv, 120).exit_status, 0);
    return dom.out;
  }

  static fs::path dir_;
  static json model_;
};
fs::path EnergyPage::dir_;
json EnergyPage::model_;

void expect_point(const json& drawn, const json& want, const std::string& what) {
  EXPECT_NEAR(drawn["x"].get<double>(), want["time_s"].get<double>(), 1e-9 * want["time_s"].get<double>()) << what;
  EXPECT_NEAR(drawn["y"].get<double>(), want["energy_j"].get<double>(), 1e-9 * want["energy_j"].get<double>()) << what;
  EXPECT_EQ(drawn["label"], want["label"]) << what;
}

TEST_F(EnergyPage, TheTradeOffChartDrawsTheModelsPointsFrontAndChoices) {
  const json& en = model_["energy"];
  ASSERT_EQ(en["available"], true) << en.dump();
  const std::string raw = page_dom(dir_ / "model.json", "energy-model"), dom = html_unescape(raw);
  const json c = chart_titled(rendered_charts(raw), "Energy against time");
  ASSERT_TRUE(c.is_object()) << "no energy chart drawn";
  EXPECT_EQ(c["scales"]["x"]["title"], "time [s]");
  EXPECT_EQ(c["scales"]["y"]["title"], "energy [J]");
  std::map<std::string, json> drawn;
  for (const auto& d : c["datasets"]) drawn[d["label"].get<std::string>().substr(0, 14)] = d;
  const json& all = drawn.at("configurations")["data"];
  ASSERT_EQ(all.size(), en["points"].size());
  std::vector<json> front;
  for (std::size_t i = 0; i < all.size(); ++i) {
    expect_point(all[i], en["points"][i], "point " + std::to_string(i));
    if (en["points"][i]["pareto"].get<bool>()) front.push_back(en["points"][i]);
  }
  std::sort(front.begin(), front.end(), [](const json& a, const json& b) { return a["time_s"] < b["time_s"]; });
  const json& line = drawn.at("Pareto front (")["data"];
  ASSERT_EQ(line.size(), front.size());
  EXPECT_GE(front.size(), 2u);  // a trade-off, not one point
  for (std::size_t i = 0; i < front.size(); ++i) expect_point(line[i], front[i], "front " + std::to_string(i));
  const std::pair<const char*, const char*> choices[] = {{"energy_optimal", "energy-optimal"},
                                                         {"within_slowdown", "lowest energy within the slowdown"},
                                                         {"edp", "EDP optimum"}, {"ed2p", "ED2P optimum"}};
  for (const auto& [key, words] : choices) {
    const json& d = en["decisions"][key];
    const std::string name = std::string(words) + ": " + d["label"].get<std::string>();
    json mark;
    for (const auto& ds : c["datasets"]) if (ds["label"] == name) mark = ds;
    ASSERT_TRUE(mark.is_object()) << "no marked point named '" << name << "'";
    ASSERT_EQ(mark["data"].size(), 1u);
    expect_point(mark["data"][0], d, key);
    EXPECT_EQ(mark["drawn"], 1) << key;
    EXPECT_NE(dom.find(d["sentence"].get<std::string>()), std::string::npos) << key << " sentence";
  }
  EXPECT_NE(dom.find(en["sentence"].get<std::string>()), std::string::npos) << "the answer sentence";
}

TEST_F(EnergyPage, TheSweepPagesRunsTableHasEnergyColumnsLabelledEmulated) {
  const std::string dom = html_unescape(page_dom(dir_ / "sweep", "energy-sweep"));
  EXPECT_NE(dom.find("<th>energy [J]</th>"), std::string::npos);
  EXPECT_NE(dom.find("<th>mean power [W]</th>"), std::string::npos);
  EXPECT_NE(dom.find("Energy [J] and mean power [W] are EMULATED"), std::string::npos);
  const auto md = run_process({kHpcsens, "report", (dir_ / "sweep").string(), "--format", "md"}, 120);
  ASSERT_EQ(md.exit_status, 0) << md.err;
  EXPECT_NE(md.out.find("energy [J]"), std::string::npos) << md.out;
}

}  // namespace
}  // namespace hpcsens::testing
