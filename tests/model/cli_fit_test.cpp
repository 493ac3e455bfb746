// `hpcsens fit` and `hpcsens predict` through the real binary: exit status 2 with file, line
// and field for bad input; model JSON, predictions and EMULATED labels for good input.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "record/run_record.h"
#include "tests/integration/process.h"
#include "tests/model/cli_fixture.h"
#include "tests/model/ground_truth.h"

namespace hpcsens::model {
namespace {

namespace fs = std::filesystem;

TEST_F(CliTest, BadCsvInputsExitTwoNamingFileLineAndField) {
  const std::string h = "label,cpu_ghz,mem_gbs,time_s\na,2,50,10\n";
  struct Case {
    std::string text, expect;
  } cases[] = {
      {h + "b,1,50,nan\n", "nan.csv:3: field 'time_s'"},
      {h + "b,1,50,-4\n", "neg.csv:3: field 'time_s'"},
      {h + "b,1,50,0\n", "zero.csv:3: field 'time_s'"},
      {"label,cpu_ghz,time_s\na,2,10\n", "missing.csv:1: header: missing column 'mem_gbs'"},
      {h + "b,one,50,3\n", "word.csv:3: field 'cpu_ghz'"},
  };
  const char* names[] = {"nan.csv", "neg.csv", "zero.csv", "missing.csv", "word.csv"};
  for (size_t i = 0; i < std::size(cases); ++i) {
    const std::string f = file(names[i], cases[i].text);
    const auto r = run("fit " + f);
    EXPECT_EQ(r.exit_status, 2) << names[i] << ": " << r.err;
    EXPECT_NE(r.err.find(cases[i].expect), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
  }
  const auto r = run("fit " + path("does-not-exist.csv"));
  EXPECT_EQ(r.exit_status, 2);
  EXPECT_NE(r.err.find("does-not-exist.csv: cannot read"), std::string::npos) << r.err;
}

// Regression (QA): 1e300 as a time made GLPK abort (exit 134); hex was read as a number.
TEST_F(CliTest, HugeAndHexTimesExitTwoNamingFileLineAndField) {
  std::string text = "label,cpu_ghz,mem_gbs,time_s\n";
  const char* rows[] = {"a,1.2,60,100", "b,1.8,60,78", "c,2.4,60,TIME", "d,3.0,60,58",
                        "e,1.2,120,92", "f,1.8,120,65", "g,2.4,120,53", "h,3.0,120,45"};
  for (const char* r : rows) text += std::string(r) + "\n";
  for (const std::string t : {"1e300", "1e200", "0x41"}) {
    std::string body = text;
    body.replace(body.find("TIME"), 4, t);
    const auto r = run("fit " + file("huge.csv", body));
    EXPECT_EQ(r.exit_status, 2) << t << ": " << r.err;
    EXPECT_NE(r.err.find("huge.csv:4: field 'time_s'"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
  }
}

TEST_F(CliTest, CollinearDesignExitsTwoNamingTheCause) {
  std::string text = "label,cpu_ghz,mem_gbs,time_s\n";
  for (double f : {1.0, 1.5, 2.0, 2.5, 3.0})
    text += "p" + std::to_string(f) + "," + std::to_string(f) + "," + std::to_string(20 * f) + "," +
            std::to_string(24 / f + 600 / (20 * f)) + "\n";
  const auto r = run("fit " + file("collinear.csv", text) + " --model cpu+mem");
  EXPECT_EQ(r.exit_status, 2) << r.err;
  EXPECT_NE(r.err.find("collinear"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("cpu_ghz and mem_gbs were varied together"), std::string::npos) << r.err;
  // --model auto fits the largest identifiable model instead, and says why in words.
  const auto a = run("fit " + path("collinear.csv") + " --format json");
  ASSERT_EQ(a.exit_status, 0) << a.err;
  const auto j = nlohmann::json::parse(a.out);
  EXPECT_EQ(j["model"], "cpu+fixed");
  EXPECT_EQ(j["verdict"], "caution");
  EXPECT_NE(j["notes"].dump().find("collinear"), std::string::npos) << j["notes"];
}

TEST_F(CliTest, FitWritesModelAndPredictUsesIt) {
  const std::string csv = good_csv({24.0, 600.0, 4.0});
  const auto fit = run("fit " + csv + " --model auto -o " + path("model.json"));
  ASSERT_EQ(fit.exit_status, 0) << fit.err;
  EXPECT_NE(fit.out.find("model cpu+mem+io"), std::string::npos) << fit.out;
  EXPECT_NE(fit.out.find("LOOCV MAPE"), std::string::npos);
  std::ifstream in(path("model.json"));
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["schema"], "hpcsens.model.v1");
  EXPECT_EQ(j["model"], "cpu+mem+io");
  EXPECT_LT(j["diagnostics"]["mape"].get<double>(), 0.02);

  const auto p = run("predict " + path("model.json") + " --cpu-ghz 2.6 --mem-gbs 40 --format json");
  ASSERT_EQ(p.exit_status, 0) << p.err;
  const auto pj = nlohmann::json::parse(p.out);
  const double t = testing::true_time({24.0, 600.0, 4.0}, {2.6, 40});
  EXPECT_NEAR(pj["predicted_s"].get<double>(), t, 0.02 * t);
  EXPECT_LE(pj["low_s"].get<double>(), pj["predicted_s"].get<double>());
  EXPECT_GE(pj["high_s"].get<double>(), pj["predicted_s"].get<double>());

  const std::string sys = file("systems.yaml",
                               "systems:\n  - name: slowmem\n    cpu_ghz: 3.0\n    mem_gbs: 20\n"
                               "  - name: fastmem\n    cpu_ghz: 2.4\n    mem_gbs: 90\n");
  const auto ranked = run("predict " + path("model.json") + " --system " + sys);
  ASSERT_EQ(ranked.exit_status, 0) << ranked.err;
  EXPECT_LT(ranked.out.find("fastmem"), ranked.out.find("slowmem")) << ranked.out;
  EXPECT_NE(ranked.out.find("speedup"), std::string::npos);
  EXPECT_NE(ranked.out.find("extrapolating"), std::string::npos) << "90 GB/s is far above the measured 60";

  const std::string bad = file("bad.yaml", "- name: x\n  cpu_ghz: 2\n  mem_gbs: lots\n");
  const auto b = run("predict " + path("model.json") + " --system " + bad);
  EXPECT_EQ(b.exit_status, 2);
  EXPECT_NE(b.err.find("bad.yaml:3: field 'mem_gbs'"), std::string::npos) << b.err;
  EXPECT_EQ(run("predict " + path("model.json")).exit_status, 2);  // neither rates nor systems

  // Regression (QA): nan rates printed nan rows; range errors printed DBL_MAX in full.
  for (const std::string v : {"nan", "inf", "0", "-2", "1e300", "0x2"}) {
    const auto r = run("predict " + path("model.json") + " --cpu-ghz " + v + " --mem-gbs 100");
    EXPECT_EQ(r.exit_status, 2) << v << ": " << r.out;
    EXPECT_NE(r.err.find("--cpu-ghz"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("must be a positive finite number"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("179769"), std::string::npos) << r.err;
  }
  const auto mem = run("predict " + path("model.json") + " --cpu-ghz 2 --mem-gbs nan");
  EXPECT_EQ(mem.exit_status, 2);
  EXPECT_NE(mem.err.find("--mem-gbs"), std::string::npos) << mem.err;
  for (const std::string v : {"nan", "-0.1", "0.6", "inf"}) {
    const auto r = run("fit " + csv + " --bounds-slack " + v);
    EXPECT_EQ(r.exit_status, 2) << v;
    EXPECT_NE(r.err.find("--bounds-slack"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("must be a number from 0 to 0.5"), std::string::npos) << r.err;
  }
  // Regression (QA): --lat-ns was silently ignored by a model without a latency term.
  const auto lat = run("predict " + path("model.json") + " --cpu-ghz 2.6 --mem-gbs 40 --lat-ns 90");
  EXPECT_EQ(lat.exit_status, 0) << lat.err;
  EXPECT_NE(lat.err.find("--lat-ns ignored: model 'cpu+mem+io' has no latency term"), std::string::npos) << lat.err;
  // Regression (QA): duplicate system names were accepted.
  const std::string dup = file("dup.yaml", "systems:\n  - name: a\n    cpu_ghz: 2.4\n    mem_gbs: 31\n"
                                           "  - name: a\n    cpu_ghz: 2.5\n    mem_gbs: 31\n");
  const auto d = run("predict " + path("model.json") + " --system " + dup);
  EXPECT_EQ(d.exit_status, 2);
  EXPECT_NE(d.err.find("dup.yaml:5: field 'name': duplicate system name 'a'"), std::string::npos) << d.err;
  const auto d2 = run("predict " + path("model.json") + " --system " + sys + " --system " + sys);
  EXPECT_EQ(d2.exit_status, 2);
  EXPECT_NE(d2.err.find("field 'name': duplicate system name 'slowmem'"), std::string::npos) << d2.err;
  EXPECT_EQ(run("predict " + csv + " --cpu-ghz 2 --mem-gbs 3").exit_status, 2);  // not a model file
}

TEST_F(CliTest, OtherFormats) {
  const std::string csv = good_csv({24.0, 600.0, 0.0});
  const auto c = run("fit " + csv + " --model cpu+mem --format csv");
  ASSERT_EQ(c.exit_status, 0) << c.err;
  EXPECT_EQ(c.out.rfind("label,cpu_ghz,mem_gbs,observed_s,predicted_s,error", 0), 0u) << c.out;
  EXPECT_EQ(std::count(c.out.begin(), c.out.end(), '\n'), 13);
  const auto m = run("fit " + csv + " --model cpu+mem --format md");
  ASSERT_EQ(m.exit_status, 0);
  EXPECT_NE(m.out.find("| term |"), std::string::npos) << m.out;
  const auto j = run("fit " + csv + " --model overlap --format json");
  ASSERT_EQ(j.exit_status, 0) << j.err;
  EXPECT_TRUE(nlohmann::json::parse(j.out)["overlap"]["w"].is_number());
  EXPECT_EQ(run("fit " + csv + " --format yaml").exit_status, 2);
  EXPECT_EQ(run("fit " + csv + " --model cpu").exit_status, 2);
}

TEST_F(CliTest, PerRankFromCsvGroupsRanksAndCapsTheTable) {
  // 100 ranks: 0-59 CPU-heavy, 60-99 memory-heavy.
  std::string text = "label,cpu_ghz,mem_gbs,time_s,rank\n";
  for (int r = 0; r < 100; ++r) {
    const testing::Truth t = r < 60 ? testing::Truth{40.0, 100.0, 1.0} : testing::Truth{5.0, 900.0, 1.0};
    for (const auto& p : testing::generate_points(t, testing::acceptance_grid(), {0.005, 50u + r, 1}))
      text += p.label + "," + std::to_string(p.cpu_ghz) + "," + std::to_string(p.mem_gbs) + "," +
              std::to_string(p.time_s) + "," + std::to_string(r) + "\n";
  }
  const auto res = run("fit " + file("ranks.csv", text) + " --model cpu+mem+io --per-rank -o " + path("m.json"));
  ASSERT_EQ(res.exit_status, 0) << res.err;
  EXPECT_NE(res.out.find("36 more ranks"), std::string::npos) << res.out;
  EXPECT_NE(res.out.find("0-59"), std::string::npos) << res.out;
  EXPECT_NE(res.out.find("60-99"), std::string::npos) << res.out;
  std::ifstream in(path("m.json"));
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["per_rank"]["ranks"].size(), 100u);
  EXPECT_EQ(j["per_rank"]["groups"].size(), 2u);
  // The CSV has no room for them: it must say so rather than drop them silently.
  const auto csv = run("fit " + path("ranks.csv") + " --model cpu+mem+io --per-rank --format csv");
  ASSERT_EQ(csv.exit_status, 0) << csv.err;
  EXPECT_NE(csv.err.find("per-rank shares are in --table ranks"), std::string::npos) << csv.err;
}

TEST_F(CliTest, CeresDoesNotLogToStderr) {
  // Rank-deficient covariance (no memory work in the overlap model): handled as a warning in
  // the output, not as solver log lines on stderr.
  // The data has no memory work, so the verdict line says the 'mem' term is unreliable: that is
  // hpcsens's own message, not a solver log line (glog lines start with a severity and a date).
  const auto r = run("fit " + good_csv({24.0, 0.0, 2.0}) + " --model overlap");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  std::istringstream lines(r.err);
  for (std::string line; std::getline(lines, line);)
    EXPECT_EQ(line.rfind("hpcsens fit: ", 0), 0u) << "not ours: " << line;
  EXPECT_NE(r.err.find("the 'mem' term is unreliable"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("stderr by bootstrap"), std::string::npos) << r.out;
}

TEST_F(CliTest, EmulatedRecordsAreLabelledEverywhere) {
  const testing::Truth truth{24.0, 600.0, 2.0};
  int i = 0;
  for (const auto& o : testing::generate(truth, testing::acceptance_grid(), {0.01, 2, 2})) {
    record::RunRecord r;
    r.job.command = {"emulated"};
    r.job.nranks = 4;
    r.config = {{"cpu_ghz", o.cpu_ghz}, {"mem_gbs", o.mem_gbs}, {"label", o.label}};
    r.timing.job_s = o.time_s;
    for (int k = 0; k < 4; ++k) {
      record::RankRecord rk;
      rk.rank = k;
      rk.wall_s = o.time_s * (k < 2 ? 1.0 : 0.7);
      r.ranks.push_back(rk);
    }
    r.emulated = true;
    file("records/run" + std::to_string(i++) + ".json", record::to_json(r).dump());
  }
  const auto fit = run("fit " + path("records") + " --per-rank -o " + path("m.json"));
  ASSERT_EQ(fit.exit_status, 0) << fit.err;
  EXPECT_EQ(fit.out.rfind("EMULATED", 0), 0u) << fit.out;
  EXPECT_NE(fit.out.find("per-rank bottlenecks"), std::string::npos);
  EXPECT_NE(fit.err.find("(EMULATED)"), std::string::npos);
  std::ifstream in(path("m.json"));
  const auto j = nlohmann::json::parse(in);
  EXPECT_TRUE(j["emulated"].get<bool>());
  EXPECT_EQ(j["per_rank"]["ranks"].size(), 4u);
  EXPECT_EQ(j["points"][0]["reps"], 2);
  const auto p = run("predict " + path("m.json") + " --cpu-ghz 2 --mem-gbs 30");
  ASSERT_EQ(p.exit_status, 0);
  EXPECT_EQ(p.out.rfind("EMULATED", 0), 0u) << p.out;
}

}  // namespace
}  // namespace hpcsens::model
