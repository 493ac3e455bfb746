// A sweep's page, text and JSON follow the rates the sweep varied. The network sweep here is made
// by hand and labelled as such: run records as the network-delay knob writes them (six settings
// of added latency and bandwidth, three repetitions), with a core clock and STREAM bandwidth that
// only jitter (3.47-3.56 GHz, 10.0-10.4 GB/s) and times from a known model
// T = 2 s + 0.002 M messages x latency [us] + 0.3 GB x time per byte [ns/byte].
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "mpi/imbalance.h"
#include "mpi/timing_bounds.h"
#include "record/run_record.h"
#include "report/html_report.h"
#include "report/model_view.h"

namespace hpcsens::report {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct NetSetting {
  const char* name;
  double latency_us, bandwidth_gbs;
};
constexpr NetSetting kSettings[] = {{"base", 0, 0},      {"lat200", 200, 0},   {"lat400", 400, 0},
                                    {"bw250", 0, 0.25},  {"bw125", 0, 0.125}, {"both", 200, 0.25}};

record::RunRecord timed_record(double job_s) {
  record::RunRecord rec;
  rec.job.command = {"mpirun", "-np", "2", "./net_pattern"};
  rec.job.nranks = 2;
  rec.job.hosts = {"node001"};
  for (int i = 0; i < 2; ++i) {
    record::RankRecord r;
    r.rank = i, r.host = "node001", r.pid = 100 + i;
    r.t0 = 10.0, r.t1 = 10.01, r.t3 = 10.0 + job_s, r.t2 = r.t3 - 0.01;
    r.wall_s = r.t2 - r.t1, r.mpi_s = 0.5 * r.wall_s, r.compute_s = r.wall_s - r.mpi_s;
    rec.ranks.push_back(r);
  }
  mpi::fill_timing(rec);
  mpi::fill_imbalance(rec);
  return rec;
}

// The directory `hpcsens sweep` writes for examples/sweeps/network.yaml (records and journal).
fs::path network_sweep(const fs::path& dir) {
  fs::remove_all(dir);
  fs::create_directories(dir / "records");
  int n = 0;
  for (int p = 0; p < 6; ++p)
    for (int rep = 1; rep <= 3; ++rep, ++n) {
      const NetSetting& s = kSettings[p];
      const double jitter = ((n * 7) % 10) / 10.0;  // 0 .. 0.9, no pattern with the settings
      const double lat = 5.0 + 0.05 * jitter + s.latency_us;
      const double nspb = 0.2 + 0.002 * jitter + (s.bandwidth_gbs > 0 ? 1.0 / s.bandwidth_gbs : 0.0);
      record::RunRecord rec = timed_record((2.0 + 0.002 * lat + 0.3 * nspb) * (1 + 0.001 * (jitter - 0.45)));
      rec.config = {{"label", s.name}, {"sweep_point", p}, {"repetition", rep}, {"cpu_ghz", 3.47 + 0.1 * jitter},
                    {"mem_gbs", 10.0 + 0.4 * jitter}, {"net_config", s.name}, {"net_added_latency_us", s.latency_us},
                    {"net_added_bandwidth_gbs", s.bandwidth_gbs}, {"net_latency_us", lat}, {"net_ns_per_byte", nspb}};
      std::ofstream(dir / "records" / ("p0" + std::to_string(p) + "-r" + std::to_string(rep) + ".json"))
          << record::to_json(rec).dump();
    }
  std::ofstream(dir / "journal.jsonl") << "{\"type\":\"started\"}\n{\"type\":\"finished\"}\n{\"type\":\"restored\"}\n";
  return dir;
}

class NetworkSweepView : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = network_sweep(fs::temp_directory_path() / ("hpcsens-sweep-view-" + std::to_string(::getpid())));
    view_ = sweep_view(dir_.string());
    page_ = sweep_page(dir_.string());
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }
  static std::vector<json> charts_titled(const std::string& prefix) {
    std::vector<json> out;
    for (const auto& s : page_["sections"])
      for (const auto& c : s["charts"])
        if (c["title"].get<std::string>().rfind(prefix, 0) == 0) out.push_back(c);
    return out;
  }
  static fs::path dir_;
  static json view_, page_;
};
fs::path NetworkSweepView::dir_;
json NetworkSweepView::view_, NetworkSweepView::page_;

TEST_F(NetworkSweepView, RatesVariedAreTheNetworksAndTheJitteringOnesAreHeld) {
  std::map<std::string, bool> varied;
  for (const auto& r : view_["rates"]) varied[r["rate"]] = r["varied"];
  EXPECT_EQ(varied, (std::map<std::string, bool>{{"cpu_ghz", false}, {"mem_gbs", false}, {"net_latency_us", true},
                                                 {"net_ns_per_byte", true}}));
  // Bandwidth is shown as the user typed it (GB/s), the run's 1 / time per byte.
  const json& run = view_["runs"][3 * 4];  // bw125, first repetition
  EXPECT_EQ(run["settings"]["net_bandwidth_gbs"], "0.125 GB/s link");
  EXPECT_NEAR(run["rates"]["net_bandwidth_gbs"].get<double>(), 1.0 / (0.2 + 0.002 * ((12 * 7) % 10) / 10.0 + 8.0), 1e-12);
}

TEST_F(NetworkSweepView, ChartsFollowTheVariedRatesWithOneSeriesPerSetting) {
  const auto runs = charts_titled("Run time of every run against the ");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0]["x"], "network latency [us]");
  EXPECT_EQ(runs[1]["x"], "network bandwidth [GB/s]");
  // Against latency, one series per bandwidth setting (none, 0.25, 0.125) and the reverse.
  EXPECT_EQ(runs[0]["series"].size(), 3u);
  EXPECT_EQ(runs[1]["series"].size(), 3u);
  EXPECT_EQ(runs[0]["series"][0]["name"], "0.125 GB/s link");
  EXPECT_EQ(runs[1].value("logx", false), true);  // 0.12 to 5 GB/s: the limited links stay apart
  std::size_t points = 0;
  for (const auto& s : runs[0]["series"]) points += s["data"].size();
  EXPECT_EQ(points, 18u);
  const auto residuals = charts_titled("Residuals against the ");
  ASSERT_EQ(residuals.size(), 2u);
  EXPECT_EQ(residuals[0]["x"], "network latency [us]");
  EXPECT_EQ(residuals[1]["x"], "network bandwidth [GB/s]");
  EXPECT_EQ(page_.dump().find("core clock ["), std::string::npos) << "a core-clock axis or column";
  EXPECT_NE(page_.dump().find("core clock held at "), std::string::npos);
}

TEST_F(NetworkSweepView, RunsTableHasTheNetworkColumns) {
  const Table t = runs_table(view_);
  EXPECT_EQ(t.header, (std::vector<std::string>{"run", "label", "network latency [us]", "network bandwidth [GB/s]",
                                                "job time [s]", "emulated"}));
  ASSERT_EQ(t.rows.size(), 18u);
  EXPECT_EQ(t.rows[3][1], "lat200");
}

TEST_F(NetworkSweepView, AdviceIsActionsWithTheirFiguresAndNamesThePaths) {
  const json& a = view_["answer"];
  EXPECT_NE(a["headline"].get<std::string>().find("The sweep varied network latency "), std::string::npos) << a;
  ASSERT_FALSE(a["advice"].empty());
  for (const auto& x : a["advice"]) {
    const std::string s = x;
    EXPECT_EQ(s.find("calibration.clock"), std::string::npos) << s;  // the clock was not swept
    EXPECT_EQ(s.find("MODEL.json"), std::string::npos) << s;
    EXPECT_EQ(s.find("Model choice"), std::string::npos) << s;
    EXPECT_TRUE(std::regex_search(s, std::regex("[0-9]"))) << "no figure behind: " << s;
  }
  const std::string records = (dir_ / "records").string(), model = (dir_ / "model.json").string();
  if (a["tone"] != "bad") {
    EXPECT_NE(a["advice"][0].get<std::string>().find("hpcsens fit " + records + " -o " + model + ", then hpcsens "
                                                     "predict " + model), std::string::npos) << a["advice"][0];
  }
  bool held = false;
  for (const auto& c : a["caveats"]) held = held || c.get<std::string>().rfind("Core clock held at ", 0) == 0;
  EXPECT_TRUE(held) << a["caveats"];
}

TEST_F(NetworkSweepView, TextMarkdownAndJsonRenderTheSameAnswer) {
  const std::string headline = view_["answer"]["headline"];
  const auto text = sweep_or_model_report(dir_.string(), "table");
  ASSERT_TRUE(text.has_value());
  EXPECT_NE(text->find("Answer: " + headline.substr(0, 60)), std::string::npos) << *text;
  EXPECT_NE(text->find("network bandwidth [GB/s]"), std::string::npos);
  EXPECT_NE(text->find("Journal entries by kind"), std::string::npos);
  const auto md = sweep_or_model_report(dir_.string(), "md");
  ASSERT_TRUE(md.has_value());
  EXPECT_NE(md->find("### Answer\n\n" + headline), std::string::npos);
  EXPECT_NE(md->find("| network latency [us] |"), std::string::npos);
  const auto summary = sweep_or_model_report(dir_.string(), "table", true);  // report --summary
  ASSERT_TRUE(summary.has_value());
  EXPECT_EQ(summary->rfind(text->substr(0, summary->size()), 0), 0u) << "the answer, as the full text opens";
  EXPECT_EQ(summary->find("Rates: what the sweep varied"), std::string::npos);
  const auto j = sweep_or_model_report(dir_.string(), "json");
  ASSERT_TRUE(j.has_value());
  EXPECT_EQ(json::parse(*j), view_);
  EXPECT_EQ(page_["answer"], view_["answer"]);
  EXPECT_FALSE(fs::exists(dir_ / "model.json"));  // reading writes nothing
}

TEST_F(NetworkSweepView, ModelFileGetsTheSameRolesAndNotesOutsideTheAdvice) {
  // The model the page fitted, saved and read as a model file.
  std::ofstream(dir_ / "saved.json") << view_["model"].dump();
  const json mv = model_view(view_["model"], (dir_ / "saved.json").string());
  EXPECT_EQ(mv["rates"], view_["rates"]);
  EXPECT_EQ(mv["residuals"], view_["residuals"]);
  for (const auto& x : mv["answer"]["advice"]) EXPECT_EQ(x.get<std::string>().find("hpcsens fit "), std::string::npos);
  const auto j = sweep_or_model_report((dir_ / "saved.json").string(), "json");
  ASSERT_TRUE(j.has_value());
  EXPECT_EQ(json::parse(*j)["answer"], mv["answer"]);
  // A run record is not a model: left to the run reports.
  std::ofstream(dir_ / "run.json") << record::to_json(timed_record(3.0)).dump();
  EXPECT_FALSE(sweep_or_model_report((dir_ / "run.json").string(), "json").has_value());
}

json rate(const char* key, bool varied, double lo, double hi) {
  return {{"rate", key}, {"varied", varied}, {"lo", lo}, {"hi", hi}, {"median", (lo + hi) / 2}};
}

TEST(ModelAnswer, VerdictWhatWasVariedAndActionsWithTheirFigures) {
  json m = {{"model", "cpu+mem+io"}, {"verdict", "ok"}, {"verdict_reasons", json::array()},
            {"sensitivity", "at 3 GHz / 120 GB/s, 10 % more core clock saves 6.1% (5.9%-6.3%) of run time"},
            {"selection", {{"reason", "cpu+mem+io: the io term is significant"}}}, {"notes", {"fixed is I/O"}},
            {"diagnostics", {{"loocv_mape", 0.012}, {"mape", 0.008}}},
            {"rate_variation", {rate("cpu_ghz", true, 1.2, 3.0), rate("mem_gbs", true, 60, 120)}},
            {"terms", {{{"name", "cpu"}}, {{"name", "mem"}}, {{"name", "io"}, {"share", {{"fit", 0.07}}}}}}};
  Answer a = model_answer(m, rate_roles(m), {"/data/m.json", ""});
  EXPECT_EQ(a.tone, "ok");
  EXPECT_EQ(a.headline, "Verdict: ok. At 3 GHz / 120 GB/s, 10 % more core clock saves 6.1% (5.9%-6.3%) of run time. "
                        "The sweep varied core clock 1.2 to 3 GHz and memory bandwidth 60 to 120 GB/s.");
  ASSERT_EQ(a.advice.size(), 1u);  // the model choice and the fit notes are facts, not things to try
  EXPECT_EQ(a.advice[0], "Project it onto candidate systems within the measured range (core clock 1.2 to 3 GHz and "
                         "memory bandwidth 60 to 120 GB/s), where leaving one configuration out mispredicts it by "
                         "1.2 %: hpcsens predict /data/m.json --system candidates.yaml (copy "
                         "examples/systems/candidates.yaml of the hpcsens sources, installed as "
                         "share/hpcsens/examples/systems/candidates.yaml, and put in your candidate systems' rates).");
  // Where hpcsens is installed beside its examples, the command names the installed file.
  ModelPlace installed{"/data/m.json", "", "/opt/hpcsens/share/hpcsens/examples/systems/candidates.yaml"};
  EXPECT_NE(model_answer(m, rate_roles(m), installed)
                .advice[0]
                .find("--system /opt/hpcsens/share/hpcsens/examples/systems/candidates.yaml (example candidates"),
            std::string::npos);
  EXPECT_EQ(fit_notes(m), (std::vector<std::string>{"Model choice: cpu+mem+io: the io term is significant.",
                                                    "Fit note: fixed is I/O."}));
  EXPECT_TRUE(a.caveats.empty());

  // Unreliable: a term the data cannot determine names its rate's range; a held rate is a caveat,
  // and a large constant part says which held rate would split it.
  m["verdict"] = "unreliable";
  m["verdict_reasons"] = {"the core clock had no effect on the time", "R² 0.31"};
  m["rate_variation"] = {rate("cpu_ghz", true, 2.9, 3.1), rate("mem_gbs", false, 99, 101)};
  m["terms"] = {{{"name", "cpu"}, {"unreliable", "its time moves 0.4 % over the range, noise 1.0 %"}},
                {{"name", "io"}, {"work", 8.0}, {"share", {{"fit", 0.8}}}}};
  m["baseline"] = {{"time_s", 10.0}};
  m["noise"] = 0.01;
  a = model_answer(m, rate_roles(m), {"/data/m.json", ""});
  EXPECT_EQ(a.tone, "bad");
  EXPECT_EQ(a.headline.rfind("Verdict: unreliable, do not use this model for projections. The sweep varied core "
                             "clock 2.9 to 3.1 GHz.", 0), 0u) << a.headline;
  // Every reason once, in the sentence a prediction and a mix on this model say (common/answer.h).
  EXPECT_EQ(a.caveats, (std::vector<std::string>{"The model's verdict is unreliable: the core clock had no effect on "
                                                 "the time and R² 0.31.",
                                                 "Memory bandwidth held at 100 GB/s (measured 99 to 101 "
                                                 "GB/s: noise, not a setting): the model states no sensitivity to it."}));
  ASSERT_EQ(a.advice.size(), 2u);
  EXPECT_EQ(a.advice[0], "Vary core clock further than 2.9 to 3.1 GHz, or repeat each point more often: T_cpu is not "
                         "determined (its time moves 0.4 % over the range, noise 1.0 %).");
  EXPECT_EQ(a.advice[1], "Vary memory bandwidth (held at 100 GB/s) too, to split T_io (8 s, 80.0 % of the baseline's "
                         "modelled time) into the parts each rate drives.");
  EXPECT_EQ(model_formula("cpu+fixed"), "T = W_cpu / R_cpu + T_fixed");
  EXPECT_EQ(model_formula("cpu+mem+io+lat"), "T = W_cpu / R_cpu + W_mem / R_mem + T_io + W_lat x L");
  EXPECT_EQ(model_formula("net_lat+net_bw+fixed"), "T = W_net_lat x net_latency_us + W_net_bw x net_ns_per_byte + T_fixed");
}

}  // namespace
}  // namespace hpcsens::report
