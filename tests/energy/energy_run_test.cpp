// End to end: `hpcsens run` puts the node's energy into the run record, from a powercap root
// handed in through HPCSENS_POWERCAP_ROOT (the test hook), or says why there is none.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "energy/powercap.h"
#include "fake_powercap.h"
#include "run_fixture.h"

namespace hpcsens::testing {
namespace {
using ::testing::HasSubstr;

class EnergyRun : public HpcsensRunTest {
 protected:
  void TearDown() override {
    ::unsetenv(energy::kRootEnv);
    HpcsensRunTest::TearDown();
  }
  static std::vector<std::string> job(const std::vector<std::string>& args) {
    std::vector<std::string> v = {"mpirun", "-np", "2", "--oversubscribe", ENERGY_PROG};
    v.insert(v.end(), args.begin(), args.end());
    return v;
  }
};

TEST_F(EnergyRun, AFakeNodeJoulesAndItsWrapReachTheRecordAndTheReport) {
  FakePowercap fake;
  // 10 J counters; the package starts 1 J below the top and the job adds 3 x 1 J: one wrap.
  fake.add_zone("intel-rapl:0", "package-0", 9999999, 9000000);
  fake.add_zone("intel-rapl:0:0", "dram", 9999999, 0);
  ::setenv(energy::kRootEnv, fake.root().c_str(), 1);
  const auto r = wrap(job({fake.root() + "/intel-rapl:0/energy_uj", "9999999", "1000000", "3"}));
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const auto rec = record(r);
  const auto& e = rec.at("energy");
  EXPECT_EQ(e.at("available"), true) << e.dump();
  EXPECT_EQ(e.at("source"), "powercap");
  ASSERT_EQ(e.at("nodes").size(), 1u);
  const auto& node = e.at("nodes")[0];
  EXPECT_EQ(node.at("root"), fake.root());
  EXPECT_GE(node.at("samples").get<int>(), 2);
  const auto& pkg = node.at("domains")[0];
  EXPECT_EQ(pkg.at("name"), "package-0");
  EXPECT_DOUBLE_EQ(pkg.at("joules").get<double>(), 3.0);
  EXPECT_EQ(pkg.at("wraps"), 1);
  EXPECT_GT(pkg.at("mean_w").get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(node.at("domains")[1].at("joules").get<double>(), 0.0) << "DRAM did not move";
  // The report's Job table says it, with what RAPL leaves out.
  EXPECT_THAT(r.err, HasSubstr("energy (RAPL)"));
  EXPECT_THAT(r.err, HasSubstr("package 3 J ("));
  EXPECT_THAT(r.err, HasSubstr("no fans, PSU losses"));
}

TEST_F(EnergyRun, NoPowercapZonesIsARecordedReason) {
  const std::filesystem::path empty = out_.string() + "-powercap";
  std::filesystem::create_directories(empty);
  ::setenv(energy::kRootEnv, empty.c_str(), 1);
  const auto r = wrap(job({}));
  std::filesystem::remove_all(empty);
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const auto rec = record(r);
  const auto& e = rec.at("energy");
  EXPECT_EQ(e.at("available"), false);
  EXPECT_EQ(e.at("reason").get<std::string>().rfind("not available: no RAPL powercap zones under " + empty.string(), 0),
            0u) << e.dump();
  EXPECT_THAT(r.err, HasSubstr("energy (RAPL)"));
  EXPECT_THAT(r.err, HasSubstr("not available: no RAPL powercap zones under"));
}

TEST_F(EnergyRun, ThisHostsOwnPowercapTreeGivesFiguresOrAReason) {
  // Never assumes what this host has: the expectation follows the tree the test finds itself.
  const bool has_zones = energy::discover(energy::kDefaultRoot).reason.empty();
  const auto r = wrap(job({}));
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const auto rec = record(r);
  const auto& e = rec.at("energy");
  if (has_zones && ::geteuid() == 0) {
    EXPECT_EQ(e.at("available"), true) << e.dump();
    EXPECT_FALSE(e.at("nodes")[0].at("domains").empty());
  } else {
    EXPECT_EQ(e.at("available"), false);
    EXPECT_THAT(e.at("reason").get<std::string>(), HasSubstr("not available: "));
  }
}

}  // namespace
}  // namespace hpcsens::testing
