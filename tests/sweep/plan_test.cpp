// The plan: full grid x repetitions, each run exactly once, seeded order.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "sweep/spec/plan.h"
#include "sweep/spec/sweep_common.h"

namespace hpcsens::sweep {
namespace {

MemoryConfig memory(const std::string& name) {
  MemoryConfig m;
  m.name = name;
  return m;
}

SweepSpec grid_spec() {
  SweepSpec s;
  s.command = {"mpirun", "./a"};
  s.cpu_ghz = {1.2, 1.8, 2.4};
  s.uncore = {{1.0, 1.0}, {2.0, 2.0}};
  s.memory = {memory("m1"), memory("m2")};
  s.repetitions = 3;
  s.seed = 5;
  return s;
}

TEST(SweepPlan, FullGridTimesRepetitionsEachExactlyOnce) {
  const auto s = grid_spec();
  const auto p = make_plan(s, s.cpu_ghz);
  EXPECT_EQ(p.points.size(), 12u);
  ASSERT_EQ(p.runs.size(), 36u);
  std::set<std::string> ids;
  std::map<int, int> per_point;
  for (const auto& r : p.runs) {
    ids.insert(r.id);
    ++per_point[r.point];
  }
  EXPECT_EQ(ids.size(), 36u);
  for (const auto& [pt, n] : per_point) EXPECT_EQ(n, 3) << pt;
  EXPECT_EQ(p.points[0].label, "cpu1.2_unc1_m1");
  EXPECT_EQ(p.points[11].label, "cpu2.4_unc2_m2");
}

TEST(SweepPlan, SeededOrderIsReproducibleAndSeedDependent) {
  auto s = grid_spec();
  const auto a = make_plan(s, s.cpu_ghz), b = make_plan(s, s.cpu_ghz);
  std::vector<std::string> ia, ib;
  for (const auto& r : a.runs) ia.push_back(r.id);
  for (const auto& r : b.runs) ib.push_back(r.id);
  EXPECT_EQ(ia, ib);
  s.seed = 6;
  std::vector<std::string> ic;
  for (const auto& r : make_plan(s, s.cpu_ghz).runs) ic.push_back(r.id);
  EXPECT_NE(ia, ic);
  // Randomized means not grid order: the first 12 runs are not simply all repetition 1 in order.
  std::vector<std::string> sorted = ia;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_NE(ia, sorted);
}

TEST(SweepPlan, SequentialOrderIsGridOrder) {
  auto s = grid_spec();
  s.randomized = false;
  const auto p = make_plan(s, s.cpu_ghz);
  EXPECT_EQ(p.runs.front().id, "p00-r1");
  EXPECT_EQ(p.runs[1].id, "p00-r2");
  EXPECT_EQ(p.runs.back().id, "p11-r3");
}

TEST(SweepPlan, ManualMemoryConfigurationsAreVisitedOnceEach) {
  auto s = grid_spec();
  s.memory[0].manual = "swap DIMMs to A";
  s.memory[1].manual = "swap DIMMs to B";
  const auto p = make_plan(s, s.cpu_ghz);
  int changes = 0;
  for (std::size_t i = 1; i < p.runs.size(); ++i)
    changes += p.points[std::size_t(p.runs[i].point)].memory != p.points[std::size_t(p.runs[i - 1].point)].memory;
  EXPECT_EQ(changes, 1);
}

TEST(SweepPlan, NoKnobsIsOneDefaultPoint) {
  SweepSpec s;
  s.command = {"mpirun", "./a"};
  s.repetitions = 3;
  const auto p = make_plan(s, {});
  ASSERT_EQ(p.points.size(), 1u);
  EXPECT_EQ(p.points[0].label, "default");
  EXPECT_EQ(p.runs.size(), 3u);
}

// Records name a knob's request <knob>_requested for every knob; the older uncore keys stay.
TEST(PointJson, EveryKnobNamesItsRequestByOneScheme) {
  SweepSpec s = grid_spec();
  s.uncore = {{1.2, 2.0}};
  const Plan p = make_plan(s, s.cpu_ghz);
  const auto j = point_json(p.points[0], s);
  EXPECT_EQ(j["cpu_ghz_requested"], 1.2);
  EXPECT_EQ(j["uncore_min_ghz_requested"], 1.2);
  EXPECT_EQ(j["uncore_max_ghz_requested"], 2.0);
  EXPECT_EQ(j["uncore_min_ghz"], 1.2);
  EXPECT_EQ(j["uncore_max_ghz"], 2.0);
  EXPECT_EQ(j["memory_config"], "m1");
}

}  // namespace
}  // namespace hpcsens::sweep
