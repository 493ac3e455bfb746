// HTML pages as data: which charts each page has, what the Top-Down tree flags, that large jobs
// are summarised, that nothing from the input can end the page's script, and that the page
// loads nothing from anywhere. (Rendering in a browser: html_render_test.cpp.)
#include <gtest/gtest.h>

#include <regex>

#include "common/errors.h"
#include "report/html_page.h"
#include "report/html_report.h"
#include "report/html_static.h"
#include "report_fixtures.h"

namespace hpcsens::report {
namespace {

using nlohmann::json;

std::vector<std::string> chart_titles(const json& page) {
  std::vector<std::string> out;
  for (const auto& s : page["sections"])
    for (const auto& c : s.value("charts", json::array())) out.push_back(c["title"].get<std::string>());
  return out;
}

bool has_title(const std::vector<std::string>& titles, const std::string& part) {
  for (const auto& t : titles)
    if (t.find(part) != std::string::npos) return true;
  return false;
}

TEST(RunPage, SmallJobHasEveryRankTopDownTreeAndTheNewPerRankSections) {
  const auto rec = testing::small_job(8, true);
  const json raw = testing::with_rank_extras(record::to_json(rec));
  const json page = run_page(rec, raw);
  const auto titles = chart_titles(page);
  EXPECT_EQ(titles.size(), 7u);
  EXPECT_TRUE(has_title(titles, "Time per rank"));
  EXPECT_TRUE(has_title(titles, "MPI time by call"));
  EXPECT_TRUE(has_title(titles, "Top-Down level 1 per rank"));
  EXPECT_TRUE(has_title(titles, "Rank x rank matrix"));
  EXPECT_TRUE(has_title(titles, "Messages by size"));
  EXPECT_TRUE(has_title(titles, "Time in regions"));
  EXPECT_TRUE(has_title(titles, "I/O time by interface"));
  // The matrix's axes span whole ranks, so bubbles of the first and last rank are not clipped.
  for (const auto& s : page["sections"])
    for (const auto& c : s.value("charts", json::array()))
      if (c["title"].get<std::string>().find("Rank x rank") != std::string::npos) EXPECT_EQ(c["rank_axes"], 8);
  // Every chart has axis titles with units.
  for (const auto& s : page["sections"])
    for (const auto& c : s.value("charts", json::array())) {
      EXPECT_FALSE(c["x"].get<std::string>().empty());
      const std::string y = c["y"].get<std::string>();
      EXPECT_TRUE(y.find('[') != std::string::npos || y.find("rank") != std::string::npos) << c["title"];
    }
  // Backend Bound 50 % is flagged, with Memory Bound under it; Frontend 10 % is not expanded.
  json tree;
  for (const auto& s : page["sections"])
    if (s.contains("tree")) tree = s["tree"];
  ASSERT_TRUE(tree.is_array());
  bool backend = false;
  for (const auto& n : tree) {
    if (n["name"] == "Backend Bound") {
      backend = n["flagged"].get<bool>();
      EXPECT_EQ(n["children"][0]["name"], "Memory Bound");
      EXPECT_TRUE(n["children"][0]["flagged"].get<bool>());
    }
    if (n["name"] == "Frontend Bound") EXPECT_FALSE(n.contains("children"));
  }
  EXPECT_TRUE(backend);
}

TEST(RunPage, LargeJobIsADistributionAndTheExtremes) {
  const auto rec = testing::small_job(1000, false);
  const json page = run_page(rec, json());
  const auto titles = chart_titles(page);
  EXPECT_TRUE(has_title(titles, "distribution over 1000 ranks"));
  EXPECT_TRUE(has_title(titles, "Slowest 10 ranks"));
  EXPECT_TRUE(has_title(titles, "Fastest 10 ranks"));
  EXPECT_FALSE(has_title(titles, "Time per rank (stacked"));
  EXPECT_LT(page.dump().size(), 100000u);  // summarised: no per-rank data
}

TEST(RunPage, TopDownMissingSaysWhy) {
  const json page = run_page(testing::small_job(4, false), json());
  bool said = false;
  for (const auto& s : page["sections"])
    if (s["title"] == "Top-Down")
      for (const auto& t : s["pre"]) said = said || t.get<std::string>().find("not measured") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(HtmlDocument, InputTextCannotEndTheScriptOrInjectMarkup) {
  auto rec = testing::small_job(4, false);
  rec.ranks[0].host = "</script><script>alert(1)</script>";
  rec.job.command = {"<img src=x onerror=alert(2)>"};
  const std::string page = html::document(run_page(rec, json()));
  EXPECT_EQ(page.find("<script>alert(1)"), std::string::npos);
  EXPECT_EQ(page.find("<img src=x"), std::string::npos);
  EXPECT_NE(page.find("&lt;/script&gt;&lt;script&gt;alert(1)"), std::string::npos);  // shown, as text
}

// Control bytes from a record (a host name with an escape sequence, a bell, a C1 CSI, an invalid
// byte) never stand raw in the page: shown as \xHH text (issue 22).
TEST(HtmlDocument, NoRawControlBytesFromTheInput) {
  auto rec = testing::small_job(4, false);
  rec.ranks[0].host = "h\x1b[31mred\x07\xc2\x9bx\xff";
  rec.job.command = {"cmd\x01arg"};
  const std::string page = html::document(run_page(rec, json()));
  for (unsigned char c : page)
    ASSERT_FALSE((c < 0x20 && c != '\n' && c != '\t' && c != '\r') || c == 0x7f) << "raw control byte " << int(c);
  EXPECT_EQ(page.find("\xc2\x9b"), std::string::npos) << "raw C1 control";
  EXPECT_NE(page.find("h\\x1b[31mred\\x07"), std::string::npos) << "shown as text";
}

// Without JavaScript the page still says everything: the tables (and each chart's numbers) are
// in the HTML text itself, before any script, with a line saying the charts need JavaScript.
TEST(HtmlDocument, NumbersAreInTheHtmlTextWithoutScript) {
  const auto rec = testing::small_job(4, false);
  const std::string page = html::document(run_page(rec, json()));
  const std::string body = page.substr(0, page.find("<script"));
  EXPECT_NE(body.find("<noscript>"), std::string::npos);
  EXPECT_NE(body.find("charts need JavaScript"), std::string::npos);
  // Rank 3's compute time in the rank table, and the job time bound in the summary.
  EXPECT_NE(body.find("<td class=\"num\">9.3333</td>"), std::string::npos) << body;
  EXPECT_NE(body.find("<td class=\"num\">" + fixed(rec.timing.job_s, 6) + "</td>"), std::string::npos);
  // Every chart is a placeholder holding its title and the table of its numbers.
  const auto chart = body.find("<div class=\"chart\" data-chart=\"0\">");
  ASSERT_NE(chart, std::string::npos);
  EXPECT_LT(chart, body.find("Numbers behind this chart"));
  EXPECT_NE(body.find("<th>compute [s]</th>", chart), std::string::npos) << body.substr(chart, 2000);
  // The script's data holds the charts only: the tables are not sent twice.
  const std::string data = page.substr(page.find("id=\"hpcsens-data\">"));
  EXPECT_EQ(data.substr(0, data.find("</script>")).find("\"tables\""), std::string::npos);
}

TEST(HtmlDocument, CellsReadAsTheScriptPrintedThem) {
  EXPECT_EQ(html::cell_text(json(1234567.0)), "1,234,567");  // bytes and counts: never in exponent form
  EXPECT_EQ(html::cell_text(json(0.0001234)), "1.2340e-4");
  EXPECT_EQ(html::cell_text(json(12.3456789)), "12.3457");
  EXPECT_EQ(html::cell_text(json(0.5)), "0.5");
  EXPECT_EQ(html::cell_text(json(0)), "0");
  EXPECT_EQ(html::cell_text(json()), "-");
  EXPECT_EQ(html::cell_text(json::array({1, 2.5})), "1 to 2.5");
  EXPECT_EQ(html::cell_text(json{{"x", 1}, {"y", 2}}), "1, 2");
}

TEST(HtmlDocument, LoadsNothingFromAnywhere) {
  const std::string page = html::document(run_page(testing::small_job(4, true), json()));
  const std::regex url(R"((src|href)\s*=\s*["']?\s*(https?:|//))", std::regex::icase);
  EXPECT_FALSE(std::regex_search(page, url));
  EXPECT_NE(page.find("Chart.js v3"), std::string::npos);  // the library is inside the page
  EXPECT_EQ(page.find("<link"), std::string::npos);
}

TEST(ModelPage, MissingPointsNameTheFileAndField) {
  const json model = {{"schema", "hpcsens.model.v1"}, {"model", "cpu+mem"}, {"terms", json::array()}};
  try {
    (void)model_page(model, "m.json");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "m.json: field 'points' is missing");
  }
}

TEST(ModelPage, OneRateModelWithVerdictAndFixedTerm) {
  json points = json::array();
  for (double ghz : {1.2, 1.8, 2.4, 3.0})
    points.push_back({{"label", "cpu" + std::to_string(ghz)}, {"cpu_ghz", ghz}, {"mem_gbs", 100.0},
                      {"observed_s", 60 / ghz + 5}, {"predicted_s", 60 / ghz + 5}, {"error", 0.0}});
  const json model = {{"schema", "hpcsens.model.v1"}, {"model", "cpu+fixed"}, {"verdict", "caution"},
                      {"verdict_reasons", {"the memory rate was not varied"}},
                      {"terms", {{{"name", "cpu"}, {"work", 60.0}}, {{"name", "fixed"}, {"work", 5.0}}}},
                      {"diagnostics", {{"slope", 1.0}, {"intercept", 0.0}}},
                      {"points", points}};
  const json page = model_page(model, "m.json");
  const auto titles = chart_titles(page);
  EXPECT_EQ(titles.size(), 4u);  // terms per configuration, observed vs modelled, residuals vs the clock, bounds
  EXPECT_TRUE(has_title(titles, "Residuals against the core clock"));
  EXPECT_FALSE(has_title(titles, "Residuals against the memory bandwidth"));  // held at 100 GB/s
  const auto& verdict = page["sections"][0];
  EXPECT_EQ(verdict["verdict"]["word"], "caution");  // drawn first in the section, coloured by the word
  EXPECT_EQ(verdict["verdict"]["text"], "Verdict: caution");
  EXPECT_EQ(verdict["text"][0], "Reason: the memory rate was not varied");
  EXPECT_EQ(page["answer"]["tone"], "caution");
  EXPECT_EQ(page["answer"]["headline"], "Verdict: caution. The sweep varied core clock 1.2 to 3 GHz.");
  EXPECT_EQ(page["answer"]["caveats"][0], "The model's verdict is caution: the memory rate was not varied.");
  EXPECT_EQ(page["answer"]["caveats"][1], "Memory bandwidth held at 100 GB/s: the model states no sensitivity to it.");
  EXPECT_EQ(page["notes"][0].get<std::string>().rfind("Model cpu+fixed: T = W_cpu / R_cpu + T_fixed", 0), 0u);
  const auto& bars = page["sections"][1]["charts"][0];
  EXPECT_EQ(bars["series"][0]["data"][0], 50.0);  // T_cpu = 60 Gcycles / 1.2 GHz
  EXPECT_EQ(bars["series"][1]["name"], "T_fixed (model)");
  EXPECT_EQ(bars["series"][1]["data"][3], 5.0);
}

TEST(MixPage, WorkloadAndPerApplicationSpeedUps) {
  const json page = mix_page(testing::mix_fixture(), "mix.json");
  const auto titles = chart_titles(page);
  ASSERT_EQ(titles.size(), 2u);
  EXPECT_TRUE(page["emulated"].get<bool>());
  const auto& per_app = page["sections"][1]["charts"][0];
  EXPECT_EQ(per_app["labels"], json({"fast-cpu", "big-mem"}));
  EXPECT_EQ(per_app["series"][0]["name"], "cfd");
  EXPECT_EQ(per_app["series"][0]["data"], json({1.5, 1.26}));
}

}  // namespace
}  // namespace hpcsens::report
