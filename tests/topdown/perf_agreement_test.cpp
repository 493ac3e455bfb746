// Every shipped Top-Down table against Linux perf's own metric expressions (transcribed verbatim,
// with file and kernel commit, in tests/topdown/perf_metrics.json and evaluated by
// tests/topdown/perf_expr.cpp), on seeded counter profiles per table: level 1 and level 2 must
// agree within 0.1 percentage point.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/topdown/perf_expr.h"
#include "topdown/event_tables.h"
#include "topdown/metrics.h"

using hpcsens::testing::eval_perf_expr;
using namespace hpcsens::topdown;
using nlohmann::json;

namespace {

constexpr double kTolerance = 0.001;  // 0.1 percentage point
constexpr int kProfilesPerTable = 8;

json load_fixture() {
  std::ifstream in(TOPDOWN_PERF_METRICS);
  return json::parse(in);
}

// An entry with "same_as" takes its base entry and changes constants, events and counters.
json resolve(const json& entry, const json& all) {
  if (!entry.contains("same_as")) return entry;
  json base;
  for (const auto& e : all)
    if (e.at("table") == entry.at("same_as") && !e.contains("same_as")) base = e;
  EXPECT_FALSE(base.is_null()) << entry.dump();
  for (const char* key : {"constants", "substitutions", "label"})
    if (entry.contains(key)) base[key] = entry.at(key);
  for (const char* key : {"extra_events", "replace_events"})
    if (entry.contains(key))
      for (const auto& [k, v] : entry.at(key).items()) base["events"][k] = v;
  if (entry.contains("extra_counters"))
    for (const auto& [k, v] : entry.at("extra_counters").items()) base["counters"][k] = v;
  base["table"] = entry.at("table");
  return base;
}

std::optional<double> TopdownMetrics::*field(const std::string& name) {
  static const std::map<std::string, std::optional<double> TopdownMetrics::*> fields = {
      {"retiring", &TopdownMetrics::retiring},
      {"bad_speculation", &TopdownMetrics::bad_speculation},
      {"frontend_bound", &TopdownMetrics::frontend_bound},
      {"backend_bound", &TopdownMetrics::backend_bound},
      {"smt_contention", &TopdownMetrics::smt_contention},
      {"memory_bound", &TopdownMetrics::memory_bound},
      {"core_bound", &TopdownMetrics::core_bound},
      {"fetch_latency", &TopdownMetrics::fetch_latency},
      {"fetch_bandwidth", &TopdownMetrics::fetch_bandwidth},
      {"branch_mispredicts", &TopdownMetrics::branch_mispredicts},
      {"machine_clears", &TopdownMetrics::machine_clears},
      {"frontend_stalls", &TopdownMetrics::frontend_stalls},
      {"backend_stalls", &TopdownMetrics::backend_stalls}};
  return fields.at(name);
}

// perf's value of `metric` for the counters of one profile. Names resolve to constants, other
// metrics, then events (whose mapping is an expression over record keys); anything unknown is
// NaN, which fails the comparison unless it sits in a branch perf's expression does not take.
class PerfModel {
 public:
  PerfModel(const json& entry, const std::map<std::string, double>& counters) : e_(entry), counters_(counters) {}

  double metric(const std::string& name) {
    if (auto it = memo_.find(name); it != memo_.end()) return it->second;
    const double v = eval_perf_expr(e_.at("metrics").at(name).get<std::string>(), [this](const std::string& n) { return lookup(n); });
    return memo_[name] = v;
  }

 private:
  const json& e_;
  const std::map<std::string, double>& counters_;
  std::map<std::string, double> memo_;

  double lookup(const std::string& n) {
    if (e_.at("constants").contains(n)) return e_.at("constants").at(n).get<double>();
    if (e_.at("metrics").contains(n)) return metric(n);
    if (e_.at("events").contains(n))
      return eval_perf_expr(e_.at("events").at(n).get<std::string>(), [this](const std::string& key) {
        auto it = counters_.find(key);
        return it == counters_.end() ? std::nan("") : it->second;
      });
    return std::nan("");
  }
};

std::map<std::string, double> profile(const json& entry, std::mt19937_64& rng) {
  std::map<std::string, double> c;
  for (const auto& [key, range] : entry.at("counters").items()) {
    std::uniform_real_distribution<double> d(range.at(0).get<double>(), range.at(1).get<double>());
    c[key] = 1e9 * d(rng);
  }
  return c;
}

}  // namespace

TEST(PerfAgreement, EveryTableAgreesWithPerfOnSeededProfiles) {
  const json fx = load_fixture();
  std::set<std::string> covered;
  std::mt19937_64 rng(20261125);
  int compared = 0;
  for (const auto& raw : fx.at("tables")) {
    const json e = resolve(raw, fx.at("tables"));
    const std::string name = e.at("table");
    const std::string label = e.value("label", name);
    const TopdownTable table = table_by_name(name);
    ASSERT_FALSE(table.name.empty()) << name;
    covered.insert(name);
    for (int p = 0; p < kProfilesPerTable; ++p) {
      const auto counters = profile(e, rng);
      PerfModel perf(e, counters);
      const TopdownMetrics m = compute_metrics(table, name, counters);
      ASSERT_TRUE(m.ok) << label << ": " << m.why_not;
      for (const auto& [ours, theirs] : e.at("compare").items()) {
        const double scale = e.contains("metric_scale") ? e.at("metric_scale").value(theirs.get<std::string>(), 1.0) : 1.0;
        const double expected = scale * perf.metric(theirs.get<std::string>());
        const auto& got = m.*field(ours);
        ASSERT_TRUE(got.has_value()) << label << " profile " << p << ": no " << ours;
        EXPECT_NEAR(*got, expected, kTolerance) << label << " profile " << p << ": " << ours << " vs perf's " << theirs;
        ++compared;
      }
    }
  }
  for (const auto& t : all_tables()) EXPECT_EQ(covered.count(t.name), 1u) << t.name << " has no perf comparison";
  EXPECT_GT(compared, 500);
}

TEST(PerfAgreement, EachTableCitesTheKernelCommitItWasCheckedAgainst) {
  const json fx = load_fixture();
  const std::regex commit("[0-9a-f]{40}");
  for (const auto& e : fx.at("tables")) {
    if (e.contains("same_as")) continue;
    const std::string source = e.at("source");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(source, m, commit)) << source;
    const TopdownTable t = table_by_name(e.at("table").get<std::string>());
    EXPECT_NE(t.source.find(m.str()), std::string::npos) << t.name << " source does not cite " << m.str() << ": " << t.source;
  }
}

TEST(PerfExpr, EvaluatesPerfSyntax) {
  const auto none = [](const std::string& n) -> double { throw std::out_of_range(n); };
  EXPECT_DOUBLE_EQ(eval_perf_expr("1 - 2 * 3 / 4", none), -0.5);
  EXPECT_DOUBLE_EQ(eval_perf_expr("max(1 - 3, 0) + min(2, 5)", none), 2.0);
  EXPECT_DOUBLE_EQ(eval_perf_expr("d_ratio(1, 0)", none), 0.0);
  EXPECT_DOUBLE_EQ(eval_perf_expr("(7 if 2 < 1 else (3 if 1 else 4))", none), 3.0);
  const auto names = [](const std::string& n) -> double {
    if (n == "topdown-fe-bound") return 2;
    if (n == "cpu@INT_MISC.RECOVERY_CYCLES,cmask=1,edge@") return 10;
    if (n == "#SMT_on") return 0;
    if (n == "perf_raw::r02a4") return 5;
    throw std::out_of_range(n);
  };
  EXPECT_DOUBLE_EQ(eval_perf_expr("topdown\\-fe\\-bound * cpu@INT_MISC.RECOVERY_CYCLES\\,cmask\\=1\\,edge@", names), 20);
  EXPECT_DOUBLE_EQ(eval_perf_expr("(1 if #SMT_on else perf_raw::r02a4)", names), 5);
  EXPECT_THROW(eval_perf_expr("1 +", none), std::invalid_argument);
  EXPECT_THROW(eval_perf_expr("max(1 2)", none), std::invalid_argument);
}
