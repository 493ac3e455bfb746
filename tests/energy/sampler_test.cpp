// The sampler over the powercap double, driven step by step (the test advances the counters and
// calls sample(); the clock is the test's): joules, wraps, mean power and the record's objects.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "energy/energy_text.h"
#include "energy/sampler.h"
#include "fake_powercap.h"

namespace hpcsens::energy {
namespace {
using nlohmann::json;
using testing::FakePowercap;
using ::testing::HasSubstr;

// 20 J ranges: wraps come quickly in the test without changing the arithmetic.
constexpr std::uint64_t kRange = 19999999;

struct FakeClock {
  double now = 100;
  std::function<double()> fn() {
    return [this] { return now; };
  }
};

const json& domain(const json& node, const std::string& name) {
  for (const auto& d : node.at("domains"))
    if (d.at("name") == name) return d;
  throw std::runtime_error("no domain " + name);
}

TEST(Session, JoulesWrapsAndMeanPowerOverManyWraps) {
  FakePowercap fake;
  fake.add_zone("intel-rapl:0", "package-0", kRange, 15000000);
  fake.add_zone("intel-rapl:0:0", "dram", kRange);
  FakeClock clock;
  Session s(fake.root(), clock.fn());
  ASSERT_TRUE(s.available()) << s.reason();
  // 7 steps of 9 J on the package (63 J in all: from 15 J the counter passes 20 J three times),
  // 1.5 J on DRAM, each step 2 s apart.
  for (int i = 0; i < 7; ++i) {
    fake.advance("intel-rapl:0", 9000000);
    fake.advance("intel-rapl:0:0", 1500000);
    clock.now += 2;
    s.sample();
  }
  clock.now += 1;  // the last reading, at finish, sees nothing new
  const json node = s.finish();
  EXPECT_EQ(node.at("available"), true);
  EXPECT_EQ(node.at("samples"), 9);  // first, 7, last
  EXPECT_DOUBLE_EQ(node.at("duration_s").get<double>(), 15.0);
  const json& pkg = domain(node, "package-0");
  EXPECT_DOUBLE_EQ(pkg.at("joules").get<double>(), 63.0);
  EXPECT_EQ(pkg.at("wraps"), 3);  // 15+63 = 78 J: past 20, 40 and 60
  EXPECT_DOUBLE_EQ(pkg.at("mean_w").get<double>(), 63.0 / 15.0);
  EXPECT_DOUBLE_EQ(domain(node, "dram-0").at("joules").get<double>(), 10.5);
  EXPECT_EQ(domain(node, "dram-0").at("wraps"), 0);
  EXPECT_DOUBLE_EQ(node.at("joules_by_domain").at("package").get<double>(), 63.0);
  EXPECT_DOUBLE_EQ(node.at("interval_s").get<double>(), 0.01);  // 20 J at 1000 W: floor
  EXPECT_FALSE(node.contains("note"));
}

TEST(Session, TwoWrapsBetweenReadingsAreLostWhichIsWhyTheIntervalFollowsTheRange) {
  FakePowercap fake;
  fake.add_zone("intel-rapl:0", "package-0", kRange);
  Session s(fake.root());
  fake.advance("intel-rapl:0", kRange + 1 + 3000000);  // 23 J between two readings of a 20 J counter
  const json node = s.finish();
  EXPECT_DOUBLE_EQ(domain(node, "package-0").at("joules").get<double>(), 3.0) << "the counter cannot tell";
  EXPECT_EQ(fake.total("intel-rapl:0"), 23000000u);
}

TEST(Session, AZoneThatStopsReadingIsLeftOutWithItsReason) {
  FakePowercap fake;
  fake.add_zone("intel-rapl:0", "package-0", kRange);
  fake.add_zone("intel-rapl:0:0", "dram", kRange);
  Session s(fake.root());
  fake.advance("intel-rapl:0", 4000000);
  fake.corrupt("intel-rapl:0:0", "energy_uj", "junk\n");
  const json node = s.finish();
  EXPECT_DOUBLE_EQ(domain(node, "package-0").at("joules").get<double>(), 4.0);
  const json& dram = domain(node, "dram-0");
  EXPECT_EQ(dram.at("available"), false);
  EXPECT_FALSE(dram.contains("joules")) << "a reason, never a zero";
  EXPECT_THAT(dram.at("reason").get<std::string>(), HasSubstr("stopped reading mid-run: "));
  EXPECT_FALSE(node.at("joules_by_domain").contains("dram"));
}

TEST(Session, NoDramSaysWhichDomainsThereAre) {
  FakePowercap fake;
  fake.add_zone("intel-rapl:0", "package-0", kRange);
  fake.add_zone("intel-rapl:0:0", "core", kRange);
  const json node = Session(fake.root()).finish();
  EXPECT_EQ(node.at("note"), "no DRAM zone (domains present: package, core); memory energy is not in these figures");
}

TEST(Section, UnavailableCarriesTheReasonAndNoFigures) {
  FakePowercap fake;
  const json node = Session(fake.root()).finish();
  EXPECT_EQ(node.at("available"), false);
  EXPECT_FALSE(node.contains("domains"));
  const json s = energy_section({node});
  EXPECT_EQ(s.at("available"), false);
  EXPECT_EQ(s.at("reason"), node.at("reason"));
  EXPECT_EQ(s.at("source"), "powercap");
  EXPECT_EQ(energy_summary(s), node.at("reason").get<std::string>());
}

TEST(Section, TheSummaryGivesJoulesWattsAndWhatRaplCovers) {
  FakePowercap fake;
  fake.add_zone("intel-rapl:0", "package-0", kRange);
  fake.add_zone("intel-rapl:0:0", "dram", kRange);
  FakeClock clock;
  Session s(fake.root(), clock.fn());
  fake.advance("intel-rapl:0", 12000000);
  fake.advance("intel-rapl:0:0", 2000000);
  clock.now += 4;
  const std::string text = energy_summary(energy_section({s.finish()}));
  EXPECT_THAT(text, HasSubstr(": package 12 J (3 W), dram 2 J (0.5 W) over 4 s (2 samples, 0.01 s apart, 0 counter wraps)"));
  EXPECT_THAT(text, HasSubstr("DRAM only; no fans, PSU losses"));
}

TEST(Section, HostsOfTheJobThatWereNotMeasuredAreNamed) {
  FakePowercap fake;
  fake.add_zone("intel-rapl:0", "package-0", kRange);
  const json node = Session(fake.root()).finish();
  const std::string here = node.at("host");
  const std::string text = energy_summary(energy_section({node}), {here, "node7", "node9"});
  EXPECT_THAT(text, HasSubstr("; not measured: node7, node9 (ranks ran there too"));
  EXPECT_THAT(energy_summary(energy_section({node}), {here}), ::testing::Not(HasSubstr("not measured")));
}

TEST(Section, ASummaryOfAHostileSectionNeverThrows) {
  const json bad = json::parse(R"({"available": "yes", "nodes": [3, {"available": true, "host": 5,
      "joules_by_domain": {"package": "x"}, "domains": [{"wraps": "many", "available": 1}], "duration_s": "s"}]})");
  EXPECT_NO_THROW(energy_summary(bad));
  EXPECT_EQ(energy_summary(json::array()), "");
}

TEST(BackgroundSampler, SamplesOnItsOwnAndAddsEverythingUpAtStop) {
  FakePowercap fake;
  fake.add_zone("intel-rapl:0", "package-0", kRange);
  BackgroundSampler sampler(fake.root());
  // Wait for the state (three readings by the thread), not for a time.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (sampler.samples() < 4 && std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_GE(sampler.samples(), 4);
  fake.advance("intel-rapl:0", 15000000);
  const json node = sampler.stop();
  EXPECT_DOUBLE_EQ(domain(node, "package-0").at("joules").get<double>(), 15.0);
  EXPECT_GE(node.at("samples").get<int>(), 5);
  EXPECT_EQ(sampler.stop(), node) << "stop twice: the same result";
}

}  // namespace
}  // namespace hpcsens::energy
