// The real binary on one-rate sweeps, tidy CSV tables, application grouping, EMULATED CSV
// input and malformed model/system files (exit 2 naming file, line and field).
#include <gtest/gtest.h>

#include <regex>

#include <cmath>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "record/run_record.h"
#include "tests/model/cli_fixture.h"
#include "tests/model/validation_data.h"

namespace hpcsens::model {
namespace {

// Published (../shared/validation-data/project-published); tests that read it skip, naming the
// path, only when that folder is absent.
const std::string kCoreSweep = testing::fixture_path("potrf_core_clock_sweep.csv");

// A CSV table as rows of column -> cell (no quoting needed for these tables' numbers).
std::vector<std::map<std::string, std::string>> read_table(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> cols;
  std::stringstream h(line);
  for (std::string c; std::getline(h, c, ',');) cols.push_back(c);
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    std::stringstream r(line);
    std::map<std::string, std::string> row;
    size_t i = 0;
    for (std::string c; std::getline(r, c, ',');) row[cols.at(i++)] = c;
    rows.push_back(row);
  }
  return rows;
}

TEST_F(CliTest, CoreOnlySweepFitsCpuPlusFixedAndSaysWhatFixedIs) {
  REQUIRE_PUBLISHED(kCoreSweep);
  const auto r = run("fit " + kCoreSweep + " -o " + path("potrf.json"));
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_NE(r.out.find("model cpu+fixed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("verdict: ok"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("does not scale with the core clock"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("would split it into mem and io"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("10 % more core clock saves"), std::string::npos) << r.out;
  std::ifstream in(path("potrf.json"));
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["model"], "cpu+fixed");
  EXPECT_EQ(j["terms"][1]["name"], "fixed");
  EXPECT_EQ(j["terms"][1]["unit"], "s");
  EXPECT_EQ(j["verdict"], "ok");
  EXPECT_TRUE(j["verdict_reasons"].empty());
  EXPECT_EQ(j["app"], "potrf");
  // predict needs only the varied rate; a changed memory rate is warned, not silently used.
  const auto p = run("predict " + path("potrf.json") + " --cpu-ghz 1.2 --format json");
  ASSERT_EQ(p.exit_status, 0) << p.err;
  const auto pj = nlohmann::json::parse(p.out);
  EXPECT_EQ(pj["verdict"], "ok");
  EXPECT_NEAR(pj["predicted_s"].get<double>(), 0.11802 / 1.2, 0.001);
  const auto q = run("predict " + path("potrf.json") + " --cpu-ghz 0.9 --mem-gbs 200");
  ASSERT_EQ(q.exit_status, 0) << q.err;
  EXPECT_NE(q.out.find("does not model this change"), std::string::npos) << q.out;
  EXPECT_NE(q.out.find("fit interval"), std::string::npos) << q.out;
  EXPECT_NE(q.out.find("overlap range"), std::string::npos) << q.out;
}

TEST_F(CliTest, TidyTablesRoundTripTheModelNumbersExactly) {
  REQUIRE_PUBLISHED(kCoreSweep);
  ASSERT_EQ(run("fit " + kCoreSweep + " -o " + path("m.json")).exit_status, 0);
  std::ifstream in(path("m.json"));
  const auto j = nlohmann::json::parse(in);
  const auto points = run("fit " + kCoreSweep + " --format csv --table points");
  ASSERT_EQ(points.exit_status, 0) << points.err;
  auto prow = read_table(points.out);
  ASSERT_EQ(prow.size(), j["points"].size());
  for (size_t i = 0; i < prow.size(); ++i) {
    EXPECT_EQ(std::stod(prow[i]["observed_s"]), j["points"][i]["observed_s"].get<double>());
    EXPECT_EQ(std::stod(prow[i]["loocv_error_frac"]), j["points"][i]["loocv_error"].get<double>());
    EXPECT_EQ(prow[i]["verdict"], "ok");
  }
  const auto terms = run("fit " + kCoreSweep + " --format csv --table terms");
  ASSERT_EQ(terms.exit_status, 0) << terms.err;
  auto trow = read_table(terms.out);
  ASSERT_EQ(trow.size(), 2u);
  EXPECT_EQ(trow[0]["term"], "cpu");
  EXPECT_EQ(std::stod(trow[0]["work"]), j["terms"][0]["work"].get<double>());
  EXPECT_EQ(std::stod(trow[0]["elasticity"]), j["elasticities"][0]["elasticity"].get<double>());
  EXPECT_EQ(trow[1]["rate"], "");
  // ranks needs per-rank data; a table that cannot be made is an error, not an empty file.
  const auto ranks = run("fit " + kCoreSweep + " --format csv --table ranks");
  EXPECT_EQ(ranks.exit_status, 2);
  EXPECT_NE(ranks.err.find("--table ranks: needs --per-rank"), std::string::npos) << ranks.err;
  EXPECT_EQ(run("fit " + kCoreSweep + " --table terms").exit_status, 2);  // --table without csv
}

TEST_F(CliTest, RanksTableHasOneRowPerRank) {
  std::string text = "label,cpu_ghz,mem_gbs,time_s,rank\n";
  for (int r = 0; r < 4; ++r)
    for (const auto& p : testing::generate_points({24.0, 600.0, 1.0}, testing::acceptance_grid(), {0.005, 9u + r, 1}))
      text += p.label + "," + std::to_string(p.cpu_ghz) + "," + std::to_string(p.mem_gbs) + "," +
              std::to_string(p.time_s) + "," + std::to_string(r) + "\n";
  const auto res = run("fit " + file("ranks.csv", text) + " --model cpu+mem+io --per-rank --format csv --table ranks");
  ASSERT_EQ(res.exit_status, 0) << res.err;
  auto rows = read_table(res.out);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[3]["rank"], "3");
  EXPECT_EQ(std::stod(rows[0]["elasticity_cpu_ghz"]), -std::stod(rows[0]["cpu_share_frac"]));
}

TEST_F(CliTest, TwoApplicationsAreRefusedUnlessAllowed) {
  const std::string a = file("a.csv", "label,cpu_ghz,mem_gbs,time_s,app\np1,1,50,20,qe\np2,2,50,11,qe\np3,3,50,8,qe\n");
  const std::string b = file("b.csv", "label,cpu_ghz,mem_gbs,time_s,app\nq1,1,50,30,lammps\nq2,2,50,16,lammps\n");
  const auto r = run("fit " + a + " " + b);
  EXPECT_EQ(r.exit_status, 2);
  EXPECT_NE(r.err.find("'qe' (" + a + ") and 'lammps' (" + b + ")"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  const auto ok = run("fit " + a + " " + b + " --allow-mixed --format json");
  ASSERT_EQ(ok.exit_status, 0) << ok.err;
  EXPECT_NE(nlohmann::json::parse(ok.out)["verdict_reasons"].dump().find("mix several applications"),
            std::string::npos);
}

TEST_F(CliTest, RecordsOfTwoCommandsAreRefusedNamingBoth) {
  auto write = [&](const std::string& name, const std::string& cmd, double cpu, double t) {
    record::RunRecord r;
    r.job.command = {"mpirun", "-np", "2", cmd};
    r.job.nranks = 1;
    r.config = {{"cpu_ghz", cpu}, {"mem_gbs", 50.0}, {"label", name}};
    r.timing.job_s = t;
    record::RankRecord rk;
    rk.wall_s = t;
    r.ranks.push_back(rk);
    return file("recs/" + name + ".json", record::to_json(r).dump());
  };
  write("a1", "./qe", 1.0, 20);
  write("a2", "./qe", 2.0, 11);
  write("b1", "./lammps", 1.5, 14);
  const auto r = run("fit " + path("recs"));
  EXPECT_EQ(r.exit_status, 2);
  EXPECT_NE(r.err.find("'mpirun -np 2 ./qe'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("'mpirun -np 2 ./lammps'"), std::string::npos) << r.err;
}

TEST_F(CliTest, EmulatedColumnOfResultsCsvSurvivesToModelAndPrediction) {
  // The sweep's results.csv: label,cpu_ghz,mem_gbs,time_s,run_id,emulated.
  std::string text = "label,cpu_ghz,mem_gbs,time_s,run_id,emulated\n";
  int i = 0;
  for (const auto& p : testing::generate_points({24.0, 600.0, 2.0}, testing::acceptance_grid(), {0.01, 4, 1}))
    text += p.label + "," + std::to_string(p.cpu_ghz) + "," + std::to_string(p.mem_gbs) + "," +
            std::to_string(p.time_s) + ",r" + std::to_string(i++) + ",true\n";
  const auto fit = run("fit " + file("results.csv", text) + " -o " + path("m.json"));
  ASSERT_EQ(fit.exit_status, 0) << fit.err;
  EXPECT_EQ(fit.out.rfind("EMULATED", 0), 0u) << fit.out;
  const auto p = run("predict " + path("m.json") + " --cpu-ghz 2 --mem-gbs 30 --format json");
  ASSERT_EQ(p.exit_status, 0) << p.err;
  EXPECT_TRUE(nlohmann::json::parse(p.out)["emulated"].get<bool>());
  const auto bad = run("fit " + file("bad.csv", "label,cpu_ghz,mem_gbs,time_s,emulated\na,1,50,3,maybe\n"));
  EXPECT_EQ(bad.exit_status, 2);
  EXPECT_NE(bad.err.find("bad.csv:2: field 'emulated'"), std::string::npos) << bad.err;
}

TEST_F(CliTest, MalformedModelFilesExitTwoNamingTheField) {
  REQUIRE_PUBLISHED(kCoreSweep);
  ASSERT_EQ(run("fit " + kCoreSweep + " -o " + path("m.json")).exit_status, 0);
  std::ifstream in(path("m.json"));
  const auto good = nlohmann::json::parse(in);
  struct Case {
    std::string key;
    nlohmann::json value;
    std::string expect;
  } cases[] = {
      {"emulated", "yes", "field 'emulated': not true or false"},
      {"bounds_slack", "x", "field 'bounds_slack': not a number"},
      {"verdict", 3, "field 'verdict': not a string"},
      {"verdict", "great", "field 'verdict': 'great' is not ok"},
      {"verdict_reasons", "one", "field 'verdict_reasons': not a list"},
      {"model", 7, "field 'model': missing or not a string"},
      {"points", nlohmann::json::array({1}), "field 'points[0]': not an object"},
  };
  int i = 0;
  for (const auto& c : cases) {
    auto j = good;
    j[c.key] = c.value;
    const std::string f = file("bad" + std::to_string(i++) + ".json", j.dump());
    const auto r = run("predict " + f + " --cpu-ghz 1");
    EXPECT_EQ(r.exit_status, 2) << c.key << ": " << r.err;
    EXPECT_NE(r.err.find(f + ": " + c.expect), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
  }
  auto j = good;
  j["points"][0]["cpu_ghz"] = 1e300;
  const auto huge = run("predict " + file("huge.json", j.dump()) + " --cpu-ghz 1");
  EXPECT_EQ(huge.exit_status, 2);
  EXPECT_NE(huge.err.find("points[0].cpu_ghz"), std::string::npos) << huge.err;
  const auto overflow = run("predict " + file("ovf.json", "{\"schema\": 1e999}") + " --cpu-ghz 1");
  EXPECT_EQ(overflow.exit_status, 2) << overflow.err;
  const auto zero = run("predict /dev/zero --cpu-ghz 1");
  EXPECT_EQ(zero.exit_status, 2);
  EXPECT_NE(zero.err.find("/dev/zero: "), std::string::npos) << zero.err;
  EXPECT_NE(zero.err.find("not a regular file"), std::string::npos) << zero.err;
}

TEST_F(CliTest, MalformedSystemFilesExitTwoNamingFileLineAndField) {
  REQUIRE_PUBLISHED(kCoreSweep);
  ASSERT_EQ(run("fit " + kCoreSweep + " -o " + path("m.json")).exit_status, 0);
  struct Case {
    std::string text, expect;
  } cases[] = {
      {"systems:\n  - name: a\n    ? [x, y]\n    : 1\n", ":3: a field name must be a plain word"},
      {"systems:\n  - name: a\n    cpu_ghz: [1, 2]\n    mem_gbs: 100\n", ":3: field 'cpu_ghz': not a number"},
      {"systems:\n  - name: a\n    cpu_ghz: .nan\n    mem_gbs: 100\n", ":3: field 'cpu_ghz': must be a finite"},
      {"systems:\n  - name: a\n    cpu_ghz: 1e999\n    mem_gbs: 100\n", ":3: field 'cpu_ghz'"},
      {"systems:\n  - name: a\n    cpu_ghz: 1\n    mem_gbs: 100\n    nodes: -4\n", ":5: field 'nodes'"},
      {"systems: [\n", ":2: not valid YAML"},
      {"systems:\n  - name: [a]\n    cpu_ghz: 1\n    mem_gbs: 100\n", ":2: field 'name': must be a non-empty word"},
  };
  int i = 0;
  for (const auto& c : cases) {
    const std::string f = file("s" + std::to_string(i++) + ".yaml", c.text);
    const auto r = run("predict " + path("m.json") + " --system " + f);
    EXPECT_EQ(r.exit_status, 2) << c.text << r.err;
    EXPECT_NE(r.err.find(f + c.expect), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  const auto zero = run("predict " + path("m.json") + " --system /dev/zero");
  EXPECT_EQ(zero.exit_status, 2);
  EXPECT_NE(zero.err.find("/dev/zero: "), std::string::npos) << zero.err;
  EXPECT_NE(zero.err.find("not a regular file"), std::string::npos) << zero.err;
}

}  // namespace
}  // namespace hpcsens::model

namespace hpcsens::model {
namespace {

// A clock knob that did nothing (a VM): the sweep recorded requested clocks and a measured clock
// that stayed put. The fit says so in words, the verdict is unreliable, and predict labels every line.
TEST_F(CliTest, KnobWithoutEffectIsCaughtAndPredictionsAreLabelledUnreliable) {
  int i = 0;
  for (double f : {1.2, 1.8, 2.4})
    for (int rep = 0; rep < 2; ++rep) {
      record::RunRecord r;
      r.job.command = {"mpirun", "./app"};
      r.job.nranks = 1;
      const double t = 10.0 + 0.02 * ((i * 7) % 3);
      r.config = {{"cpu_ghz", f},          {"cpu_ghz_source", "requested"}, {"cpu_ghz_requested", f},
                  {"cpu_ghz_measured", 2.0}, {"mem_gbs", 50.0},             {"label", "f" + std::to_string(f)},
                  {"sweep_point", static_cast<int>(f * 10)}};
      r.timing.job_s = t;
      record::RankRecord rk;
      rk.wall_s = t;
      r.ranks.push_back(rk);
      file("recs/r" + std::to_string(i++) + ".json", record::to_json(r).dump());
    }
  const auto fit = run("fit " + path("recs") + " -o " + path("m.json"));
  ASSERT_EQ(fit.exit_status, 0) << fit.err;
  EXPECT_NE(fit.out.find("verdict: unreliable"), std::string::npos) << fit.out;
  EXPECT_NE(fit.out.find("probably had no effect"), std::string::npos) << fit.out;
  EXPECT_NE(fit.out.find("measured core clock was 2 GHz but 1.2 GHz was requested"), std::string::npos) << fit.out;
  EXPECT_NE(fit.err.find("verdict unreliable"), std::string::npos) << fit.err;
  file("sys.yaml", "systems:\n  - {name: a, cpu_ghz: 2.6, mem_gbs: 50}\n  - {name: b, cpu_ghz: 3.0, mem_gbs: 50}\n");
  const auto p = run("predict " + path("m.json") + " --system " + path("sys.yaml"));
  ASSERT_EQ(p.exit_status, 0) << p.err;
  EXPECT_NE(p.out.find("verdict: UNRELIABLE"), std::string::npos) << p.out;
  size_t lines = 0;  // each candidate's row carries its own verdict, UNRELIABLE
  const std::regex row("\\n +[12] +[ab] .* UNRELIABLE +-");
  for (auto it = std::sregex_iterator(p.out.begin(), p.out.end(), row); it != std::sregex_iterator(); ++it) ++lines;
  EXPECT_EQ(lines, 2u) << p.out;
  const auto j = run("predict " + path("m.json") + " --system " + path("sys.yaml") + " --format json");
  const auto pj = nlohmann::json::parse(j.out);
  EXPECT_EQ(pj["verdict"], "unreliable");
  EXPECT_FALSE(pj["verdict_reasons"].empty());
}

}  // namespace
}  // namespace hpcsens::model

namespace hpcsens::model {
namespace {

// One-rate models get per-rank fits too: ranks that wait (fixed) versus ranks that compute (cpu).
TEST_F(CliTest, CoreOnlySweepPerRankSaysWhichRanksGainFromTheClock) {
  std::string text = "label,cpu_ghz,mem_gbs,time_s,rank\n";
  for (int r = 0; r < 4; ++r)
    for (double f : {1.2, 1.6, 2.0, 2.4, 2.8}) {
      const double t = r < 2 ? 24 / f + 1 : 4 / f + 9;  // ranks 2-3 mostly wait
      text += "f" + std::to_string(f) + "," + std::to_string(f) + ",80," + std::to_string(t) + "," +
              std::to_string(r) + "\n";
    }
  const auto res = run("fit " + file("ranks.csv", text) + " --per-rank");
  ASSERT_EQ(res.exit_status, 0) << res.err;
  EXPECT_NE(res.out.find("model cpu+fixed"), std::string::npos) << res.out;
  EXPECT_NE(res.out.find("ranks 0-1: 10 % more core clock saves"), std::string::npos) << res.out;
  EXPECT_NE(res.out.find("ranks 2-3: 10 % more core clock saves"), std::string::npos) << res.out;
  const auto csv = run("fit " + path("ranks.csv") + " --per-rank --format csv --table ranks");
  ASSERT_EQ(csv.exit_status, 0) << csv.err;
  auto rows = read_table(csv.out);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_GT(std::stod(rows[0]["cpu_share_frac"]), 0.8);
  EXPECT_LT(std::stod(rows[3]["cpu_share_frac"]), 0.3);
  EXPECT_NE(rows[0]["group"], rows[3]["group"]);
}

TEST_F(CliTest, FitInputsThatAreNotRegularFilesExitTwo) {
  const auto r = run("fit /dev/zero");
  EXPECT_EQ(r.exit_status, 2);
  EXPECT_NE(r.err.find("/dev/zero"), std::string::npos) << r.err;
  const auto c = run("fit " + file("x.csv", "") + " --model cpu+mem");
  EXPECT_EQ(c.exit_status, 2) << c.err;
  // An explicit two-rate model on a core-only sweep is refused with the model that would fit.
  REQUIRE_PUBLISHED(kCoreSweep);
  const auto two = run("fit " + kCoreSweep + " --model cpu+mem");
  EXPECT_EQ(two.exit_status, 2);
  EXPECT_NE(two.err.find("this design identifies cpu+fixed"), std::string::npos) << two.err;
}

}  // namespace
}  // namespace hpcsens::model
