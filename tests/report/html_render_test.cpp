// Every kind of HTML page, written by the real hpcsens binary and rendered by headless Chromium
// with the network switched off: no script errors, the expected number of charts drawn, a
// screenshot taken (build/report-screenshots/*.png, for a person to look at), nothing loaded
// from anywhere, and a 100,000-rank record gives a page under 5 MB that renders.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "chromium_page.h"
#include "process.h"
#include "report_fixtures.h"

namespace hpcsens::testing {
namespace {

namespace fs = std::filesystem;
const std::string kHpcsens = HPCSENS_BIN;

struct Rendered {
  int charts = -1, expected = -1, errors = -1;
  std::string log;  // Chromium's stderr, console messages included
};

int attribute(const std::string& dom, const std::string& name) { return body_attribute(dom, name); }

class HtmlRender : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("hpcsens-html-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "profile");
    fs::create_directories(HPCSENS_SCREENSHOTS);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // hpcsens report INPUT --format html -o dir/NAME.html; the page's text.
  std::string write_page(const std::string& input, const std::string& name) {
    const auto out = (dir_ / (name + ".html")).string();
    const auto r = run_process({kHpcsens, "report", input, "--format", "html", "-o", out}, 120);
    EXPECT_EQ(r.exit_status, 0) << r.err;
    std::ifstream in(out);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }

  Rendered render(const std::string& name, int height) {
    const fs::path page = dir_ / (name + ".html");
    auto argv = chromium(dir_ / "profile");
    argv.push_back("--dump-dom");
    argv.push_back("file://" + page.string());
    const auto dom = run_process(argv, 120);
    EXPECT_EQ(dom.exit_status, 0) << dom.err;
    Rendered r{attribute(dom.out, "data-charts"), attribute(dom.out, "data-charts-expected"),
               attribute(dom.out, "data-script-errors"), dom.err};
    const fs::path png = fs::path(HPCSENS_SCREENSHOTS) / (name + ".png");
    fs::remove(png);
    argv = chromium(dir_ / "profile");
    argv.push_back("--window-size=1200," + std::to_string(height));
    argv.push_back("--screenshot=" + png.string());
    argv.push_back("file://" + page.string());
    const auto shot = run_process(argv, 120);
    EXPECT_EQ(shot.exit_status, 0) << shot.err;
    EXPECT_TRUE(fs::exists(png) && fs::file_size(png) > 20000) << png;  // a blank page is ~5 KB
    return r;
  }

  void expect_renders(const std::string& name, int charts, int height = 3000) {
    const Rendered r = render(name, height);
    EXPECT_EQ(r.errors, 0) << r.log;
    EXPECT_EQ(r.expected, charts);
    EXPECT_EQ(r.charts, charts) << "charts drawn";
    EXPECT_EQ(r.log.find("Uncaught"), std::string::npos) << r.log;
    EXPECT_EQ(r.log.find(":CONSOLE("), std::string::npos) << r.log;  // nothing logged at all
  }

  static void expect_self_contained(const std::string& html) {
    const std::regex url(R"((src|href)\s*=\s*["']?\s*(https?:|//))", std::regex::icase);
    EXPECT_FALSE(std::regex_search(html, url));
    EXPECT_EQ(html.find("<link"), std::string::npos);
    EXPECT_NE(html.find("Chart.js v3"), std::string::npos);
  }

  fs::path dir_;
};

TEST_F(HtmlRender, RunRecordWithPerRankTrafficRegionsAndTopDown) {
  const auto rec = small_job(8, true);
  const auto input = (dir_ / "run.json").string();
  std::ofstream(input) << with_rank_extras(record::to_json(rec)).dump();
  const auto html = write_page(input, "run");
  expect_self_contained(html);
  EXPECT_LT(html.size(), 400000u);
  expect_renders("run", 7, 6400);
}

TEST_F(HtmlRender, HundredThousandRanksSummarisedUnderFiveMegabytes) {
  const auto input = (dir_ / "big.json").string();
  write_big_record(input, 100000);
  const auto html = write_page(input, "run-100k-ranks");
  EXPECT_LT(html.size(), 5u << 20);
  EXPECT_NE(html.find("EMULATED"), std::string::npos);
  expect_self_contained(html);
  expect_renders("run-100k-ranks", 4, 3000);
}

TEST_F(HtmlRender, EmulatedSweepDirectoryModelAndPrediction) {
  const auto sweep = (dir_ / "sweep").string();
  auto r = run_process({kHpcsens, "sweep", HPCSENS_EMULATED_SPEC, "--out", sweep}, 120);
  ASSERT_EQ(r.exit_status, 0) << r.err;
  ASSERT_TRUE(fs::exists(fs::path(sweep) / "model.json"));
  auto html = write_page(sweep, "sweep");
  expect_self_contained(html);
  EXPECT_NE(html.find("EMULATED"), std::string::npos);
  expect_renders("sweep", 7, 6000);  // model 5, runs against the core clock and the memory bandwidth

  html = write_page((fs::path(sweep) / "model.json").string(), "model");
  expect_self_contained(html);
  expect_renders("model", 5, 3200);

  const auto systems = (dir_ / "systems.yaml").string();
  std::ofstream(systems) << "systems:\n  - {name: fast-cpu, cpu_ghz: 3.6, mem_gbs: 120}\n"
                            "  - {name: big-mem, cpu_ghz: 2.4, mem_gbs: 300}\n";
  r = run_process({kHpcsens, "predict", (fs::path(sweep) / "model.json").string(), "--system", systems,
                   "--format", "json"},
                  60);
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const auto prediction = (dir_ / "prediction.json").string();
  std::ofstream(prediction) << r.out;
  html = write_page(prediction, "prediction");
  expect_self_contained(html);
  expect_renders("prediction", 1, 1400);
}

TEST_F(HtmlRender, WorkloadMix) {
  const auto input = (dir_ / "mix.json").string();
  std::ofstream(input) << mix_fixture().dump();
  const auto html = write_page(input, "mix");
  expect_self_contained(html);
  expect_renders("mix", 2, 1600);
}

// No script runs (a policy forbidding scripts stands in for JavaScript switched off: headless
// Chromium's --dump-dom needs scripting itself): the browser shows the tables, each chart's
// numbers and the line saying the charts need JavaScript; no chart is drawn.
TEST_F(HtmlRender, ReadableWithoutJavaScript) {
  const auto rec = small_job(8, true);
  const auto input = (dir_ / "run.json").string();
  std::ofstream(input) << with_rank_extras(record::to_json(rec)).dump();
  std::string html = write_page(input, "run-no-js");
  html.insert(html.find("<head>") + 6, "<meta http-equiv=\"Content-Security-Policy\" content=\"script-src 'none'\">");
  std::ofstream(dir_ / "run-no-js.html") << html;
  auto argv = chromium(dir_ / "profile");
  argv.push_back("--dump-dom");
  argv.push_back("file://" + (dir_ / "run-no-js.html").string());
  const auto dom = run_process(argv, 120);
  ASSERT_EQ(dom.exit_status, 0) << dom.err;
  EXPECT_EQ(attribute(dom.out, "data-charts"), -1);  // the script did not run
  EXPECT_NE(dom.out.find("The charts need JavaScript"), std::string::npos);
  EXPECT_NE(dom.out.find("<td class=\"num\">9.3333</td>"), std::string::npos);  // rank 3's compute time
  EXPECT_NE(dom.out.find("Numbers behind this chart"), std::string::npos);
  EXPECT_NE(dom.out.find("Rank x rank matrix"), std::string::npos);  // a chart's title, shown as text
  EXPECT_EQ(dom.out.find("<canvas"), std::string::npos);
}

TEST_F(HtmlRender, UnknownSchemaIsOneLineExitTwo) {
  const auto input = (dir_ / "other.json").string();
  std::ofstream(input) << R"({"schema": "something.else"})";
  const auto r = run_process({kHpcsens, "report", input, "--format", "html"}, 30);
  EXPECT_EQ(r.exit_status, 2);
  EXPECT_NE(r.err.find(input + ": field 'schema': 'something.else' is not a run record"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
}

}  // namespace
}  // namespace hpcsens::testing
