// Sweep pages follow what the sweep varied, read back from what headless Chromium drew against
// `report DIR --format json` of the same directory. Two real sweeps through the hpcsens binary: a
// 2-rank network-delay sweep on this machine (added latency and bandwidth; the core clock and
// STREAM only jitter) and the emulated core x memory sweep of examples/sweeps/emulated.yaml.
// Screenshots land in HPCSENS_SCREENSHOTS for a person to look at.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include "chromium_page.h"
#include "process.h"

namespace hpcsens::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
const std::string kHpcsens = HPCSENS_BIN;

// The network example's knobs (examples/sweeps/network.yaml), two repetitions, a short job.
std::string network_spec(const fs::path& out) {
  return "job:\n  command: [mpirun, -np, '2', '" + std::string(HPCSENS_EXAMPLES_DIR) +
         "/example_net_pattern', '100', '65536', '0']\n  timeout_s: 120\nrepetitions: 2\nretries: 1\n"
         "output: '" + out.string() + "'\nknobs:\n  network:\n    - {name: base}\n"
         "    - {name: lat200, latency_us: 200}\n    - {name: lat400, latency_us: 400}\n"
         "    - {name: bw250, bandwidth_gbs: 0.25}\n    - {name: bw125, bandwidth_gbs: 0.125}\n"
         "    - {name: both, latency_us: 200, bandwidth_gbs: 0.25}\n"
         "calibration: {stream_array_mb: 8, stream_ntimes: 2}\n";
}

class SweepPages : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("hpcsens-sweep-pages-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "profile");
    std::ofstream(dir_ / "net.yaml") << network_spec(dir_ / "net");
    auto r = run_process({kHpcsens, "sweep", (dir_ / "net.yaml").string()}, 600);
    ASSERT_EQ(r.exit_status, 0) << r.err;
    r = run_process({kHpcsens, "sweep", HPCSENS_EMULATED_SPEC, "-o", (dir_ / "emu").string()}, 120);
    ASSERT_EQ(r.exit_status, 0) << r.err;
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }

  static json view_of(const std::string& name) {
    const auto r = run_process({kHpcsens, "report", (dir_ / name).string(), "--format", "json"}, 120);
    EXPECT_EQ(r.exit_status, 0) << r.err;
    return json::parse(r.out);
  }

  // The page's DOM after Chromium ran its script (no error, every chart drawn), and a screenshot.
  static std::string page_dom(const std::string& name) {
    const auto page = dir_ / (name + ".html");
    auto r = run_process({kHpcsens, "report", (dir_ / name).string(), "--format", "html", "-o", page.string()}, 120);
    EXPECT_EQ(r.exit_status, 0) << r.err;
    const auto dom = dump_dom(dir_ / "profile", page);
    EXPECT_EQ(dom.exit_status, 0) << dom.err;
    EXPECT_EQ(body_attribute(dom.out, "data-script-errors"), 0) << dom.err;
    EXPECT_EQ(body_attribute(dom.out, "data-charts"), body_attribute(dom.out, "data-charts-expected"));
    fs::create_directories(HPCSENS_SCREENSHOTS);
    const auto png = fs::path(HPCSENS_SCREENSHOTS) / ("sweep-" + name + ".png");
    auto argv = chromium(dir_ / "profile");
    argv.push_back("--window-size=1200,6000");
    argv.push_back("--screenshot=" + png.string());
    argv.push_back("file://" + page.string());
    EXPECT_EQ(run_process(argv, 120).exit_status, 0);
    return dom.out;
  }

  static fs::path dir_;
};
fs::path SweepPages::dir_;

void expect_same(double got, double want, const std::string& what) {
  EXPECT_NEAR(got, want, 1e-9 * std::max(1.0, std::fabs(want))) << what;
}

// What every sweep page must show: one run chart and one residual panel per varied rate and none
// for a held one, legends no longer than the other rates' settings, the runs table's columns,
// the answer, and every drawn number equal to the JSON.
void expect_follows_varied_rates(const json& view, const std::string& dom, const std::set<std::string>& want_varied) {
  std::set<std::string> varied;
  for (const auto& r : view["rates"]) {
    const std::string title = r["words"].get<std::string>() + " [" + r["unit"].get<std::string>() + "]";
    if (!r["varied"].get<bool>()) {
      EXPECT_EQ(dom.find(title), std::string::npos) << "held rate drawn or tabled: " << title;
      EXPECT_NE(dom.find(r["words"].get<std::string>() + " held at "), std::string::npos) << title;
      continue;
    }
    varied.insert(r["rate"].get<std::string>());
    EXPECT_NE(dom.find("<th>" + title + "</th>"), std::string::npos) << "runs table column " << title;
  }
  EXPECT_EQ(varied, want_varied);
  const auto charts = rendered_charts(dom);
  std::map<std::string, json> runs;
  std::set<std::string> settings;
  for (const auto& run : view["runs"]) runs[run["id"]] = run;
  for (const auto& r : view["rates"]) {
    if (!r["varied"].get<bool>()) continue;
    const std::string words = r["words"], key = r["shown_key"];
    const json c = chart_titled(charts, "Run time of every run against the " + words);
    ASSERT_TRUE(c.is_object()) << words;
    EXPECT_EQ(c["scales"]["x"]["title"], words + " [" + r["unit"].get<std::string>() + "]");
    std::set<std::string> other_settings;
    for (const auto& run : view["runs"])
      for (const auto& [k, v] : run["settings"].items()) if (k != key) other_settings.insert(k + "=" + v.get<std::string>());
    EXPECT_LE(c["datasets"].size(), std::max<std::size_t>(1, other_settings.size())) << words << ": legend entries";
    std::size_t n = 0;
    for (const auto& d : c["datasets"])
      for (const auto& p : d["data"]) {
        const json& run = runs.at(p["label"].get<std::string>());
        expect_same(p["x"], run["rates"][key], "x of " + run["id"].get<std::string>());
        expect_same(p["y"], run["job_s"], "y of " + run["id"].get<std::string>());
        ++n;
      }
    EXPECT_EQ(n, view["runs"].size());
  }
  for (const auto& res : view["residuals"]) {
    const json c = chart_titled(charts, "Residuals against the " + res["words"].get<std::string>());
    ASSERT_TRUE(c.is_object()) << res["words"];
    ASSERT_EQ(c["datasets"][0]["data"].size(), res["points"].size());
    for (std::size_t i = 0; i < res["points"].size(); ++i) {
      expect_same(c["datasets"][0]["data"][i]["x"], res["points"][i]["x"], "residual x");
      expect_same(c["datasets"][0]["data"][i]["y"], res["points"][i]["error_pct"], "residual y");
    }
  }
  EXPECT_EQ(view["residuals"].size(), want_varied.size());
  std::size_t panels = 0;
  for (const auto& c : charts) panels += c["title"].get<std::string>().rfind("Residuals against", 0) == 0;
  EXPECT_EQ(panels, want_varied.size());
  std::smatch m;
  ASSERT_TRUE(std::regex_search(dom, m, std::regex("<p class=\"headline\">([^<]*)</p>")));
  EXPECT_EQ(html_unescape(m[1].str()), view["answer"]["headline"]);
  for (const auto& a : view["answer"]["advice"]) {
    EXPECT_NE(html_unescape(dom).find("<li>" + a.get<std::string>() + "</li>"), std::string::npos) << a;
    EXPECT_EQ(a.get<std::string>().find("MODEL.json"), std::string::npos);
    EXPECT_EQ(a.get<std::string>().find("Model choice"), std::string::npos);
  }
}

TEST_F(SweepPages, NetworkSweepIsDrawnAgainstTheNetworkRates) {
  const json view = view_of("net");
  const std::string dom = page_dom("net");
  expect_follows_varied_rates(view, dom, {"net_latency_us", "net_ns_per_byte"});
  EXPECT_EQ(dom.find("core clock [GHz]"), std::string::npos);
  // Added bandwidths of 0.125 GB/s next to shared memory's own: a logarithmic axis.
  const json bw = chart_titled(rendered_charts(dom), "Run time of every run against the network bandwidth");
  ASSERT_TRUE(bw.is_object());
  EXPECT_EQ(bw["scales"]["x"]["type"], "logarithmic");
  for (const auto& a : view["answer"]["advice"]) EXPECT_EQ(a.get<std::string>().find("calibration.clock"), std::string::npos) << a;
  // The text form carries the same answer and the network columns.
  const auto text = run_process({kHpcsens, "report", (dir_ / "net").string()}, 120);
  ASSERT_EQ(text.exit_status, 0) << text.err;
  EXPECT_NE(text.out.find("network bandwidth [GB/s]"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("Answer: Verdict: "), std::string::npos) << text.out;
}

TEST_F(SweepPages, CoreByMemorySweepIsDrawnAgainstCoreClockAndMemoryBandwidth) {
  const json view = view_of("emu");
  const std::string dom = page_dom("emu");
  expect_follows_varied_rates(view, dom, {"cpu_ghz", "mem_gbs"});
  const json c = chart_titled(rendered_charts(dom), "Run time of every run against the core clock");
  ASSERT_TRUE(c.is_object());
  EXPECT_EQ(c["datasets"].size(), 3u);  // one per memory configuration
  const auto md = run_process({kHpcsens, "report", (dir_ / "emu").string(), "--format", "md"}, 120);
  ASSERT_EQ(md.exit_status, 0) << md.err;
  EXPECT_NE(md.out.find("### Answer\n\n" + view["answer"]["headline"].get<std::string>()), std::string::npos);
}

}  // namespace
}  // namespace hpcsens::testing
