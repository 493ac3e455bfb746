// What the counting session says about the running fraction: 1.0 per event for a pinned group
// PAPI read back, and why not otherwise (counter_agent/running_fraction.h).
#include "counter_agent/running_fraction.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace hpcsens::agent {
namespace {

namespace fs = std::filesystem;

TEST(RunningFraction, APinnedGroupReadBackCountedAllTheTime) {
  const RunningFraction f = papi_running_fraction({"PAPI_TOT_CYC", "PAPI_TOT_INS"}, false, false);
  EXPECT_EQ(f.by_event, (std::map<std::string, double>{{"PAPI_TOT_CYC", 1.0}, {"PAPI_TOT_INS", 1.0}}));
  EXPECT_EQ(f.reason.rfind("pinned group: ", 0), 0u) << f.reason;
}

TEST(RunningFraction, MultiplexedOrHybridIsNotKnownAndSaysWhy) {
  const RunningFraction mux = papi_running_fraction({"PAPI_TOT_CYC"}, true, false);
  EXPECT_TRUE(mux.by_event.empty());
  EXPECT_EQ(mux.reason.rfind("multiplexed: ", 0), 0u) << mux.reason;
  const RunningFraction hybrid = papi_running_fraction({"PAPI_TOT_CYC"}, false, true);
  EXPECT_TRUE(hybrid.by_event.empty());
  EXPECT_EQ(hybrid.reason.rfind("hybrid CPU", 0), 0u) << hybrid.reason;
}

// A fake /sys/bus/event_source/devices: a core PMU lists its CPUs in "cpus" only on hybrids.
TEST(RunningFraction, HybridMeansMoreThanOneCorePmuWithItsOwnCpus) {
  const fs::path d = fs::temp_directory_path() / ("hpcsens_pmus_" + std::to_string(::getpid()));
  fs::remove_all(d);
  for (const char* pmu : {"cpu", "software", "uncore_imc_0"}) fs::create_directories(d / pmu);
  std::ofstream(d / "uncore_imc_0" / "cpumask") << "0\n";
  EXPECT_FALSE(hybrid_core_pmus(d.string()));
  fs::create_directories(d / "cpu_core");
  std::ofstream(d / "cpu_core" / "cpus") << "0-15\n";
  EXPECT_FALSE(hybrid_core_pmus(d.string()));
  fs::create_directories(d / "cpu_atom");
  std::ofstream(d / "cpu_atom" / "cpus") << "16-23\n";
  EXPECT_TRUE(hybrid_core_pmus(d.string()));
  EXPECT_FALSE(hybrid_core_pmus((d / "absent").string()));
  fs::remove_all(d);
}

}  // namespace
}  // namespace hpcsens::agent
