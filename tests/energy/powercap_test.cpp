// Zone discovery and reading against the powercap double: the kernel's naming for Intel servers
// and clients, multi-die packages and AMD parts, and every way a node can have no energy.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "energy/powercap.h"
#include "energy/sampler.h"
#include "fake_powercap.h"

namespace hpcsens::energy {
namespace {
using testing::FakePowercap;
using ::testing::HasSubstr;

constexpr std::uint64_t kPkgRange = 262143328850ull;  // a Skylake-SP package
constexpr std::uint64_t kDramRange = 65712999613ull;

std::vector<std::string> labels(const Discovery& d) {
  std::vector<std::string> out;
  for (const auto& z : d.zones) out.push_back(z.label + "=" + z.domain + "@" + z.id);
  return out;
}

TEST(Discover, TwoSocketServerWithCoreAndDramSubzones) {
  FakePowercap fake;
  fake.add_zone("intel-rapl:0", "package-0", kPkgRange);
  fake.add_zone("intel-rapl:0:0", "core", kPkgRange);
  fake.add_zone("intel-rapl:0:1", "dram", kDramRange);
  fake.add_zone("intel-rapl:1", "package-1", kPkgRange);
  fake.add_zone("intel-rapl:1:0", "core", kPkgRange);
  fake.add_zone("intel-rapl:1:1", "dram", kDramRange);
  const Discovery d = discover(fake.root());
  ASSERT_EQ(d.reason, "");
  EXPECT_EQ(labels(d), (std::vector<std::string>{"package-0=package@intel-rapl:0", "core-0=core@intel-rapl:0:0",
                                                 "dram-0=dram@intel-rapl:0:1", "package-1=package@intel-rapl:1",
                                                 "core-1=core@intel-rapl:1:0", "dram-1=dram@intel-rapl:1:1"}));
  EXPECT_EQ(d.zones[2].max_range_uj, kDramRange);
  EXPECT_EQ(missing_dram_note(d.zones), "");
}

TEST(Discover, ClientWithUncoreAndPsysHasNoDram) {
  FakePowercap fake;
  fake.add_zone("intel-rapl:0", "package-0", kPkgRange);
  fake.add_zone("intel-rapl:0:0", "core", kPkgRange);
  fake.add_zone("intel-rapl:0:1", "uncore", kPkgRange);
  fake.add_zone("intel-rapl:1", "psys", kPkgRange);
  // The MMIO interface repeats package-0: counted twice if read; the control type dir is no zone.
  fake.add_zone("intel-rapl-mmio:0", "package-0", kPkgRange);
  std::filesystem::create_directory(fake.root() + "/intel-rapl");
  const Discovery d = discover(fake.root());
  ASSERT_EQ(d.reason, "");
  EXPECT_EQ(labels(d), (std::vector<std::string>{"package-0=package@intel-rapl:0", "core-0=core@intel-rapl:0:0",
                                                 "uncore-0=uncore@intel-rapl:0:1", "psys=psys@intel-rapl:1"}));
  EXPECT_EQ(missing_dram_note(d.zones),
            "no DRAM zone (domains present: package, core, uncore, psys); memory energy is not in these figures");
}

TEST(Discover, MultiDiePackagesLabelTheirSubzonesByDie) {
  FakePowercap fake;
  fake.add_zone("intel-rapl:0", "package-0-die-0", kPkgRange);
  fake.add_zone("intel-rapl:1", "package-0-die-1", kPkgRange);
  fake.add_zone("intel-rapl:1:0", "dram", kDramRange);
  const Discovery d = discover(fake.root());
  EXPECT_EQ(labels(d), (std::vector<std::string>{"package-0-die-0=package@intel-rapl:0",
                                                 "package-0-die-1=package@intel-rapl:1",
                                                 "dram-0-die-1=dram@intel-rapl:1:0"}));
}

TEST(Discover, AmdPartsUnderTheIntelRaplNamesAndUnderAmdRapl) {
  // Zen: the intel_rapl_msr driver registers AMD's package and core counters as "intel-rapl";
  // no DRAM domain exists.
  FakePowercap fake;
  fake.add_zone("intel-rapl:0", "package-0", 4294967295ull);
  fake.add_zone("intel-rapl:0:0", "core", 4294967295ull);
  Discovery d = discover(fake.root());
  EXPECT_EQ(labels(d), (std::vector<std::string>{"package-0=package@intel-rapl:0", "core-0=core@intel-rapl:0:0"}));
  EXPECT_THAT(missing_dram_note(d.zones), HasSubstr("domains present: package, core)"));
  FakePowercap amd;
  amd.add_zone("amd-rapl:0", "package-0", 4294967295ull);
  amd.add_zone("amd-rapl:0:0", "core", 4294967295ull);
  d = discover(amd.root());
  EXPECT_EQ(labels(d), (std::vector<std::string>{"package-0=package@amd-rapl:0", "core-0=core@amd-rapl:0:0"}));
}

TEST(Discover, NoZonesIsAReasonNamingTheRoot) {
  FakePowercap fake;
  Discovery d = discover(fake.root());
  EXPECT_TRUE(d.zones.empty());
  EXPECT_EQ(d.reason.rfind("not available: no RAPL powercap zones under " + fake.root() + " (", 0), 0u) << d.reason;
  d = discover(fake.root() + "/missing");
  EXPECT_THAT(d.reason, HasSubstr("no RAPL powercap zones under " + fake.root() + "/missing"));
}

TEST(Discover, ARootOthersCanWriteIntoIsRefused) {
  FakePowercap fake;
  fake.add_zone("intel-rapl:0", "package-0", kPkgRange);
  ASSERT_EQ(::chmod(fake.root().c_str(), 01777), 0);  // like /tmp: anyone could plant a zone link
  const Discovery d = discover(fake.root());
  EXPECT_TRUE(d.zones.empty());
  EXPECT_THAT(d.reason, HasSubstr("not available: powercap root refused: " + fake.root()));
  EXPECT_THAT(d.reason, HasSubstr("HPCSENS_POWERCAP_ROOT must name a directory only root or you can write"));
  ASSERT_EQ(::chmod(fake.root().c_str(), 0755), 0);
  EXPECT_EQ(discover(fake.root()).reason, "");
}

TEST(Discover, AZoneWithoutANameMakesTheNodeUnavailable) {
  FakePowercap fake;
  fake.add_zone("intel-rapl:0", "package-0", kPkgRange);
  std::filesystem::remove(fake.root() + "/intel-rapl:0/name");
  const Discovery d = discover(fake.root());
  EXPECT_TRUE(d.zones.empty());
  EXPECT_THAT(d.reason, HasSubstr(fake.root() + "/intel-rapl:0/name: No such file or directory"));
}

TEST(ReadEnergy, GarbageAndOutOfRangeValuesAreReasonsNotZeros) {
  FakePowercap fake;
  fake.add_zone("intel-rapl:0", "package-0", 1000);
  const Discovery d = discover(fake.root());
  ASSERT_EQ(d.zones.size(), 1u);
  std::uint64_t uj = 7;
  std::string why;
  fake.corrupt("intel-rapl:0", "energy_uj", "-5\n");
  EXPECT_FALSE(read_energy_uj(d.zones[0], &uj, &why));
  EXPECT_THAT(why, HasSubstr("energy_uj: '-5' is not a counter value"));
  fake.corrupt("intel-rapl:0", "energy_uj", "1001\n");
  EXPECT_FALSE(read_energy_uj(d.zones[0], &uj, &why));
  EXPECT_THAT(why, HasSubstr("1001 is above max_energy_range_uj (1000)"));
  fake.corrupt("intel-rapl:0", "energy_uj", "999\n");
  EXPECT_TRUE(read_energy_uj(d.zones[0], &uj, &why));
  EXPECT_EQ(uj, 999u);
}

// What a non-root reader gets, in a child that dropped to nobody's uid: the VFS refuses the
// 0400 root-owned energy_uj exactly as the kernel's sysfs does since Linux 5.10.
std::string reason_as_nobody(const std::string& root) {
  int fds[2];
  if (::pipe(fds) != 0) return "pipe failed";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    const bool dropped = ::setgroups(0, nullptr) == 0 && ::setgid(65534) == 0 && ::setuid(65534) == 0;
    const std::string why = dropped ? Session(root).reason() : "could not drop privileges";
    (void)!::write(fds[1], why.data(), why.size());
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string out;
  char buf[512];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return out;
}

TEST(ReadEnergy, NonRootGetsEaccesAndTheReasonSaysLinux510) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to own the counter and drop to another user";
  FakePowercap fake;
  fake.add_zone("intel-rapl:0", "package-0", kPkgRange);
  fake.add_zone("intel-rapl:0:0", "dram", kDramRange);
  EXPECT_TRUE(Session(fake.root()).available()) << "root reads it";
  const std::string why = reason_as_nobody(fake.root());
  EXPECT_THAT(why, HasSubstr("not available: cannot read " + fake.root() + "/intel-rapl:0/energy_uj: Permission denied"));
  EXPECT_THAT(why, HasSubstr("since Linux 5.10 energy_uj is readable by root only"));
}

}  // namespace
}  // namespace hpcsens::energy
