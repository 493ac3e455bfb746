// Every page kind's numbers read back from what headless Chromium drew (each chart's data as the
// Chart.js instance holds it, and the tables in the DOM) against the JSON the page comes from:
// values, units and labels; the answer first, coloured by its tone. Inputs come from the real
// hpcsens binary: an emulated sweep (ground truth W_cpu 90 Gcycles, W_mem 1500 GB, T_io 3 s),
// its fit with --per-rank, a prediction and a workload mix of two models.
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
using nlohmann::json;
const std::string kHpcsens = HPCSENS_BIN;

json read_json(const fs::path& p) {
  std::ifstream in(p);
  return json::parse(in);
}

class HtmlValues : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("hpcsens-values-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "profile");
    // --no-fit: the sweep page must fit its model itself.
    const auto r = run_process({kHpcsens, "sweep", HPCSENS_EMULATED_SPEC, "-o", (dir_ / "sweep").string(), "--no-fit"}, 120);
    ASSERT_EQ(r.exit_status, 0) << r.err;
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }

  // hpcsens report INPUT --format html; Chromium's DOM of it (no script error, every chart drawn).
  static std::string page_dom(const std::string& input, const std::string& name) {
    const auto out = dir_ / (name + ".html");
    const auto r = run_process({kHpcsens, "report", input, "--format", "html", "-o", out.string()}, 120);
    EXPECT_EQ(r.exit_status, 0) << r.err;
    const auto dom = dump_dom(dir_ / "profile", out);
    EXPECT_EQ(dom.exit_status, 0) << dom.err;
    EXPECT_EQ(body_attribute(dom.out, "data-script-errors"), 0) << dom.err;
    EXPECT_EQ(body_attribute(dom.out, "data-charts"), body_attribute(dom.out, "data-charts-expected"));
    return dom.out;
  }

  // The answer is the first section, with this tone, and its headline holds `words`.
  static void expect_answer_first(const std::string& dom, const std::string& tone, const std::string& words) {
    const auto first = dom.find("<section");
    ASSERT_NE(first, std::string::npos);
    const std::string open = "<section class=\"answer tone-" + tone + "\" id=\"answer\">";
    EXPECT_EQ(dom.compare(first, open.size(), open), 0) << dom.substr(first, 80);
    std::smatch m;
    ASSERT_TRUE(std::regex_search(dom, m, std::regex("<p class=\"headline\">([^<]*)</p>")));
    EXPECT_NE(html_unescape(m[1].str()).find(words), std::string::npos) << m[1];
  }

  static fs::path dir_;
};
fs::path HtmlValues::dir_;

// How often `text` occurs in the page's text (entities decoded).
std::size_t count(const std::string& dom, const std::string& text) {
  const std::string plain = html_unescape(dom);
  std::size_t n = 0;
  for (auto at = plain.find(text); at != std::string::npos; at = plain.find(text, at + 1)) ++n;
  return n;
}

// The verdict badges of the page's tables, in page order.
std::vector<std::string> badges(const std::string& dom) {
  std::vector<std::string> out;
  const std::regex badge("<span class=\"badge verdict-([a-z]+)\">([a-z]+)</span>");
  for (auto it = std::sregex_iterator(dom.begin(), dom.end(), badge); it != std::sregex_iterator(); ++it) {
    EXPECT_EQ((*it)[1], (*it)[2]);
    out.push_back((*it)[1]);
  }
  return out;
}

void expect_near_rel(double got, double want, const std::string& what) {
  EXPECT_NEAR(got, want, 1e-9 * std::max(1.0, std::fabs(want))) << what;
}

TEST_F(HtmlValues, ModelPageChartsAreTheModelsNumbersInSeconds) {
  const auto model_path = dir_ / "model.json";
  auto r = run_process({kHpcsens, "fit", (dir_ / "sweep" / "records").string(), "--per-rank", "-o", model_path.string()}, 120);
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const json model = read_json(model_path);
  const std::string dom = page_dom(model_path.string(), "model");
  expect_answer_first(dom, model["verdict"] == "ok" ? "ok" : model["verdict"] == "unreliable" ? "bad" : "caution",
                      "Verdict: " + model["verdict"].get<std::string>());
  // The model's own formula, and the verdict drawn coloured by its word.
  EXPECT_NE(dom.find("Model " + model["model"].get<std::string>() + ": T = "), std::string::npos);
  EXPECT_NE(dom.find("<p class=\"verdict verdict-" + model["verdict"].get<std::string>() + "\">"), std::string::npos);
  const auto charts = rendered_charts(dom);

  // Per-rank terms: seconds at the baseline (share x the baseline's time), stacking to that time.
  const double base_s = model["baseline"]["time_s"].get<double>();
  const json per_rank = chart_titled(charts, "Per-rank terms at the baseline");
  ASSERT_TRUE(per_rank.is_object()) << "no per-rank chart drawn";
  EXPECT_EQ(per_rank["scales"]["y"]["title"], "time at the baseline [s]");
  const json& ranks = model["per_rank"]["ranks"];
  ASSERT_EQ(per_rank["labels"].size(), ranks.size());
  ASSERT_EQ(per_rank["datasets"].size(), 3u);
  const char* keys[] = {"cpu", "mem", "fixed"};
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    double sum = 0;
    for (int k = 0; k < 3; ++k) {
      EXPECT_EQ(per_rank["datasets"][k]["label"], std::string("T_") + keys[k]);
      const double v = per_rank["datasets"][k]["data"][i].get<double>();
      expect_near_rel(v, ranks[i][keys[k]].get<double>() * base_s, "rank " + std::to_string(i) + " " + keys[k]);
      sum += v;
    }
    EXPECT_NEAR(sum, base_s, 1e-6 * base_s) << "rank " << i << ": the terms stack to the baseline time";
    EXPECT_EQ(per_rank["datasets"][0]["drawn"], ranks.size());
  }
  EXPECT_GE(per_rank["scales"]["y"]["max"].get<double>(), base_s);  // the axis shows the whole time
  EXPECT_NE(dom.find("<th>T_cpu [s]</th>"), std::string::npos);
  EXPECT_EQ(dom.find("<th>cpu [Gcycles]</th>"), std::string::npos);  // shares are not labelled as work

  // McCalpin's bars: each term's exposed time = work / rate at every configuration.
  const json bars = chart_titled(charts, "Model terms per configuration");
  ASSERT_TRUE(bars.is_object());
  EXPECT_EQ(bars["scales"]["y"]["title"], "time [s]");
  const json& pts = model["points"];
  ASSERT_EQ(bars["labels"].size(), pts.size());
  for (std::size_t k = 0; k < model["terms"].size(); ++k) {
    const json& term = model["terms"][k];
    const std::string name = term["name"];
    EXPECT_EQ(bars["datasets"][k]["label"], "T_" + name + " (model)");
    for (std::size_t j = 0; j < pts.size(); ++j) {
      const double w = term["work"].get<double>();
      const double want = name == "cpu" ? w / pts[j]["cpu_ghz"].get<double>()
                          : name == "mem" ? w / pts[j]["mem_gbs"].get<double>() : w;
      expect_near_rel(bars["datasets"][k]["data"][j].get<double>(), want, name + " at " + pts[j]["label"].get<std::string>());
    }
  }
  const json observed = bars["datasets"][model["terms"].size()];
  for (std::size_t j = 0; j < pts.size(); ++j)
    expect_near_rel(observed["data"][j].get<double>(), pts[j]["observed_s"].get<double>(), "observed");
}

TEST_F(HtmlValues, SweepWithoutModelJsonIsFittedOnTheFly) {
  ASSERT_FALSE(fs::exists(dir_ / "sweep" / "model.json"));
  const std::string dom = page_dom((dir_ / "sweep").string(), "sweep-no-fit");
  EXPECT_NE(dom.find("fitted now with the defaults of hpcsens fit"), std::string::npos);
  EXPECT_NE(dom.find("To keep it: hpcsens fit " + (dir_ / "sweep" / "records").string() + " -o " +
                     (dir_ / "sweep" / "model.json").string()),
            std::string::npos);
  EXPECT_NE(dom.find("id=\"answer\""), std::string::npos);
  const auto charts = rendered_charts(dom);
  EXPECT_TRUE(chart_titled(charts, "Model terms per configuration").is_object());
  EXPECT_TRUE(chart_titled(charts, "Run time of every run").is_object());
  EXPECT_FALSE(fs::exists(dir_ / "sweep" / "model.json"));  // the page writes nothing
}

TEST_F(HtmlValues, PredictionPageNamesTheBaselineAndDrawsTheProjections) {
  const auto model_path = dir_ / "pmodel.json";
  ASSERT_EQ(run_process({kHpcsens, "fit", (dir_ / "sweep" / "records").string(), "-o", model_path.string()}, 120).exit_status, 0);
  std::ofstream(dir_ / "systems.yaml") << "systems:\n  - {name: fast-cpu, cpu_ghz: 3.6, mem_gbs: 120}\n"
                                          "  - {name: big-mem, cpu_ghz: 2.4, mem_gbs: 300}\n";
  const auto r = run_process({kHpcsens, "predict", model_path.string(), "--system", (dir_ / "systems.yaml").string(),
                              "--format", "json"}, 60);
  ASSERT_EQ(r.exit_status, 0) << r.err;
  std::ofstream(dir_ / "prediction.json") << r.out;
  const json p = json::parse(r.out);
  const std::string dom = page_dom((dir_ / "prediction.json").string(), "prediction");
  const json& best = p["predictions"][0];
  expect_answer_first(dom, p["answer"]["tone"].get<std::string>(), p["answer"]["headline"].get<std::string>());
  EXPECT_NE(dom.find("fastest, in"), std::string::npos);
  EXPECT_NE(dom.find("on " + best["name"].get<std::string>()), std::string::npos);
  EXPECT_NE(dom.find("the baseline '" + p["baseline"]["label"].get<std::string>() + "'"), std::string::npos);
  const json c = chart_titled(rendered_charts(dom), "Projected run time per candidate");
  ASSERT_TRUE(c.is_object());
  EXPECT_EQ(c["scales"]["x"]["title"], "projected time [s]");  // horizontal bars: time along x
  for (std::size_t i = 0; i < p["predictions"].size(); ++i) {
    const json& q = p["predictions"][i];
    EXPECT_EQ(c["labels"][i], q["name"]);
    expect_near_rel(c["datasets"][2]["data"][i].get<double>(), q["predicted_s"].get<double>(), "projected");
    expect_near_rel(c["datasets"][0]["data"][i][0].get<double>(), q["fit_low_s"].get<double>(), "fit low");
    expect_near_rel(c["datasets"][0]["data"][i][1].get<double>(), q["fit_high_s"].get<double>(), "fit high");
  }
}

// The shipped demo's candidates (examples/systems/candidates.yaml) on the emulated sweep's model:
// the fastest, high-bandwidth, lies 4x beyond the measured bandwidth. The page read "runs fastest"
// under a green "Model verdict: ok" badge with no per-candidate verdict; now the headline and every
// candidate's badge and extrapolation, read back from Chromium, are the JSON's.
TEST_F(HtmlValues, PredictionPageOfAnExtrapolatedWinnerShowsEachCandidatesVerdict) {
  const auto model_path = dir_ / "demo.model.json";
  ASSERT_EQ(run_process({kHpcsens, "fit", (dir_ / "sweep" / "records").string(), "-o", model_path.string()}, 120).exit_status, 0);
  const std::string systems = std::string(HPCSENS_EXAMPLES_SYSTEMS);
  const auto r = run_process({kHpcsens, "predict", model_path.string(), "--system", systems, "--format", "json"}, 60);
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const json p = json::parse(r.out);
  const json& best = p["predictions"][0];
  ASSERT_EQ(best["name"], "high-bandwidth");
  ASSERT_EQ(best["verdict"], "unreliable");
  EXPECT_DOUBLE_EQ(best["extrapolation"].get<double>(), 4.0);
  // The page straight from predict is the page of its JSON.
  const auto page = dir_ / "demo-prediction.html";
  const auto h = run_process({kHpcsens, "predict", model_path.string(), "--system", systems, "--format", "html", "-o",
                              page.string()}, 60);
  ASSERT_EQ(h.exit_status, 0) << h.err;
  std::ofstream(dir_ / "demo-prediction.json") << r.out;
  const std::string dom = page_dom((dir_ / "demo-prediction.json").string(), "demo-prediction-report");
  const auto direct = dump_dom(dir_ / "profile", page);
  ASSERT_EQ(direct.exit_status, 0) << direct.err;
  EXPECT_EQ(direct.out, dom);
  expect_answer_first(dom, "bad", p["answer"]["headline"].get<std::string>());
  EXPECT_NE(count(dom, "but that projection is unreliable: it is extrapolated (mem_gbs 480 GB/s is 4.00x beyond"), 0u);
  for (const auto& c : p["answer"]["caveats"]) EXPECT_EQ(count(dom, "Caveat: " + c.get<std::string>()), 1u) << c;
  EXPECT_EQ(count(dom, "more repetitions"), 0u);
  EXPECT_EQ(count(dom, "Measure nearer high-bandwidth's mem_gbs"), 1u);
  // The model's verdict is labelled as the model's; each candidate has its own badge, in order.
  EXPECT_EQ(count(dom, "The model's verdict: " + p["verdict"].get<std::string>() + " (of the fit"), 1u);
  const auto marks = badges(dom);
  ASSERT_EQ(marks.size(), p["predictions"].size());
  for (std::size_t i = 0; i < marks.size(); ++i) EXPECT_EQ(marks[i], p["predictions"][i]["verdict"]) << i;
  EXPECT_NE(dom.find("<td>4.00x (mem_gbs)</td>"), std::string::npos);
  // The baseline-equal candidate reads 1x (speed-up 1 exactly), and the rates are the user's.
  const json& current = p["predictions"][2];
  ASSERT_EQ(current["name"], "current");
  EXPECT_DOUBLE_EQ(current["speedup"].get<double>(), 1.0);
  EXPECT_NE(dom.find("<th>mem_gbs [GB/s]</th>"), std::string::npos);
}

TEST_F(HtmlValues, MixPageRanksOnTheCriterionAndSaysWarningsOnce) {
  const auto records = (dir_ / "sweep" / "records").string();
  ASSERT_EQ(run_process({kHpcsens, "fit", records, "-o", (dir_ / "a.model.json").string()}, 120).exit_status, 0);
  std::ofstream(dir_ / "mix.yaml") << "applications:\n  - {name: a, model: a.model.json, weight: 0.5}\n"
                                      "  - {name: b, model: a.model.json, weight: 0.5}\nbaseline_nodes: 100\n";
  std::ofstream(dir_ / "cands.yaml")
      << "systems:\n  - {name: few-fast, cpu_ghz: 3.6, mem_gbs: 200, nodes: 60, price: 3.0e6, power_w: 1.5e5}\n"
         "  - {name: many-slow, cpu_ghz: 2.4, mem_gbs: 150, nodes: 200, price: 2.5e6, power_w: 2.6e5}\n";
  const auto r = run_process({kHpcsens, "predict", "--mix", (dir_ / "mix.yaml").string(), "--system",
                              (dir_ / "cands.yaml").string(), "--format", "json"}, 60);
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const json mix = json::parse(r.out);
  EXPECT_EQ(mix["rank_by"], "throughput");  // nodes given: throughput by default
  EXPECT_EQ(mix["systems"][0]["name"], "many-slow");
  EXPECT_EQ(mix["winners"]["speedup"], "few-fast");
  EXPECT_TRUE(mix["winner_changes"].get<bool>());
  ASSERT_EQ(mix["warnings"].size(), 1u);  // a and b share one model file
  EXPECT_NE(mix["warnings"][0].get<std::string>().find("share one model file"), std::string::npos);
  std::ofstream(dir_ / "mix.json") << r.out;
  const std::string dom = page_dom((dir_ / "mix.json").string(), "mix-values");
  EXPECT_NE(dom.find("Ranked by throughput, many-slow wins"), std::string::npos);
  EXPECT_NE(dom.find("The winner changes with the criterion: few-fast wins on speedup."), std::string::npos);
  EXPECT_EQ(std::regex_search(dom, std::regex("<td class=\"num\">[0-9.]+e-")), false) << "money in exponent form";
  EXPECT_NE(dom.find("per million"), std::string::npos);
  // The page's caveats are the answer's, each once (the EMULATED one included).
  expect_answer_first(dom, mix["answer"]["tone"].get<std::string>(), mix["answer"]["headline"].get<std::string>());
  const auto marks = badges(dom);
  ASSERT_GE(marks.size(), mix["systems"].size());
  for (std::size_t i = 0; i < mix["systems"].size(); ++i) EXPECT_EQ(marks[i], mix["systems"][i]["verdict"]) << i;
  for (const auto& c : mix["answer"]["caveats"]) EXPECT_EQ(count(dom, c.get<std::string>()), 1u) << c;
  EXPECT_EQ(count(dom, "EMULATED: at least one model was fitted to emulated runs"), 1u);
  const auto charts = rendered_charts(dom);
  const json c = chart_titled(charts, "Workload speed-up per candidate");
  ASSERT_TRUE(c.is_object());
  const json t = chart_titled(charts, "Ranked by throughput");
  ASSERT_TRUE(t.is_object());
  EXPECT_EQ(t["scales"]["x"]["title"], "throughput vs baseline [x]");
  for (std::size_t i = 0; i < mix["systems"].size(); ++i) {
    expect_near_rel(c["datasets"][1]["data"][i].get<double>(), mix["systems"][i]["speedup"].get<double>(), "speed-up");
    expect_near_rel(t["datasets"][0]["data"][i].get<double>(), mix["systems"][i]["throughput"].get<double>(), "throughput");
    EXPECT_EQ(t["labels"][i], mix["systems"][i]["name"]);
  }
}

TEST_F(HtmlValues, RunPageLeadsWithTheImbalanceAndDrawsEachRanksTimes) {
  const auto rec = small_job(8, true);
  const json j = with_rank_extras(record::to_json(rec));
  std::ofstream(dir_ / "run.json") << j.dump();
  const std::string dom = page_dom((dir_ / "run.json").string(), "run-values");
  expect_answer_first(dom, "caution", "Rank 3 computes");
  // Sections follow the answer: what dominates (time per rank) before the job's facts.
  EXPECT_LT(dom.find("<h2>Time per rank"), dom.find("<h2>Job and barrier-corrected bounds"));
  const json c = chart_titled(rendered_charts(dom), "Time per rank");
  ASSERT_TRUE(c.is_object());
  EXPECT_EQ(c["scales"]["y"]["title"], "time [s]");
  for (std::size_t i = 0; i < rec.ranks.size(); ++i) {
    expect_near_rel(c["datasets"][0]["data"][i].get<double>(), rec.ranks[i].compute_s, "compute");
    expect_near_rel(c["datasets"][1]["data"][i].get<double>(), rec.ranks[i].mpi_s, "MPI");
    expect_near_rel(c["datasets"][2]["data"][i].get<double>(), rec.ranks[i].io_s, "I/O");
  }
  EXPECT_NE(dom.find(">8.00 MiB</td>"), std::string::npos);  // posix: 1 MiB on each of 8 ranks
  EXPECT_NE(dom.find(">1.56 KiB</td>"), std::string::npos);  // stdio: 200 B on each of 8 ranks
}

}  // namespace
}  // namespace hpcsens::testing
