// The resctrl double enforces the kernel's rules (resctrl_model.h), and the sweep's pure MB
// rules and group helpers (resctrl_mb.h, resctrl_groups.h) agree with them.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <functional>

#include "fake_sysfs.h"
#include "resctrl_model.h"
#include "sweep/knobs/resctrl_groups.h"
#include "sweep/knobs/resctrl_mb.h"

namespace hpcsens::sweep {
namespace {

using namespace testing;
namespace fs = std::filesystem;

int refused_with(const std::function<void()>& f) {
  try {
    f();
  } catch (const ResctrlError& e) {
    return e.err;
  }
  return 0;
}

class ResctrlDouble : public ::testing::Test {
 protected:
  TempDir t;
  std::string root = t.path() + "/resctrl";
  ResctrlModel m;
  RealSysfs io;
  void SetUp() override { build_resctrl(root, {}); }
  std::string status() { return get(root + "/info/last_cmd_status"); }
};

TEST_F(ResctrlDouble, MkdirMakesAGroupAtTheDefaultsAndSchemataWritesRoundUpToTheGranularity) {
  m.make_group(root, "g");
  for (const char* f : {"schemata", "tasks", "cpus_list", "mode"}) EXPECT_TRUE(fs::exists(root + "/g/" + f)) << f;
  EXPECT_EQ(get(root + "/g/schemata"), "L3:0=fff;1=fff\nMB:0=100;1=100");
  m.write(root + "/g/schemata", "MB:0=15");  // only the named domain; 15 -> 20 (granularity 10)
  EXPECT_EQ(get(root + "/g/schemata"), "L3:0=fff;1=fff\nMB:0=20;1=100");
  EXPECT_EQ(status(), "ok");
  EXPECT_EQ(refused_with([&] { m.make_group(root, "g"); }), EEXIST);
}

TEST_F(ResctrlDouble, SchemataRefusesUnknownResourcesDomainsAndValuesBelowTheMinimumAndChangesNothing) {
  m.make_group(root, "g");
  const std::string before = get(root + "/g/schemata");
  EXPECT_EQ(refused_with([&] { m.write(root + "/g/schemata", "MBX:0=50"); }), EINVAL);
  EXPECT_NE(status().find("Unknown or unsupported resource name 'MBX'"), std::string::npos) << status();
  EXPECT_EQ(refused_with([&] { m.write(root + "/g/schemata", "MB:0=50;7=50"); }), EINVAL);
  EXPECT_EQ(status(), "Unknown domain 7");
  EXPECT_EQ(refused_with([&] { m.write(root + "/g/schemata", "MB:0=5"); }), EINVAL);
  EXPECT_EQ(status(), "MB value 5 out of range [10,100]");
  EXPECT_EQ(refused_with([&] { m.write(root + "/g/schemata", "MB:0=101"); }), EINVAL);
  EXPECT_EQ(get(root + "/g/schemata"), before);
}

TEST_F(ResctrlDouble, TasksTakeLivePidsOnlyAndRmdirMovesThemBackToTheDefaultGroup) {
  m.make_group(root, "g");
  const pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  ::waitpid(dead, nullptr, 0);
  EXPECT_EQ(refused_with([&] { m.write(root + "/g/tasks", std::to_string(dead)); }), ESRCH);
  EXPECT_EQ(status(), "No task " + std::to_string(dead));
  m.write(root + "/g/tasks", std::to_string(::getpid()));
  EXPECT_EQ(get(root + "/g/tasks"), std::to_string(::getpid()));
  m.remove_group(root, "g");
  EXPECT_FALSE(fs::exists(root + "/g"));
  EXPECT_EQ(get(root + "/tasks"), "1\n" + std::to_string(::getpid()));
  EXPECT_EQ(refused_with([&] { m.remove_group(root, "g"); }), ENOENT);
  EXPECT_EQ(refused_with([&] { m.remove_group(root, ""); }), EBUSY);  // the default group
  EXPECT_EQ(refused_with([&] { m.remove_group(root, "info"); }), EPERM);
}

TEST_F(ResctrlDouble, MoreGroupsThanClosidsIsRefused) {
  for (int i = 0; i < 7; ++i) m.make_group(root, "g" + std::to_string(i));  // 8 CLOSIDs, one is the default
  EXPECT_EQ(refused_with([&] { m.make_group(root, "g7"); }), ENOSPC);
  EXPECT_EQ(status(), "Out of CLOSIDs");
}

TEST_F(ResctrlDouble, ProbeReadsIntelPercentAndTheSweepsRoundingMatchesTheKernels) {
  const auto info = probe_resctrl(io, root, m.mounts_file(root));
  ASSERT_TRUE(info.mba) << info.problem;
  EXPECT_EQ(info.unit, MbUnit::kPercent);
  EXPECT_EQ(info.max, 100);
  ASSERT_EQ(info.domains.size(), 2u);
  std::string why;
  EXPECT_EQ(mb_set_value(info, 15, &why), 20);
  EXPECT_EQ(mb_set_value(info, 5, &why), std::nullopt);
  EXPECT_EQ(why, "MB value 5 out of range [10,100] (percent)");
  m.make_group(root, "g");
  m.write(root + "/g/schemata", mb_schemata_line(info.domains, 15));
  EXPECT_EQ(parse_mb_line(get(root + "/g/schemata")).at(1).value, *mb_set_value(info, 15, nullptr));
}

TEST(ResctrlProbe, AmdUnitsL3OnlyAndUnmountedAreToldApart) {
  TempDir t;
  RealSysfs io;
  ResctrlModel m;
  const auto probe = [&](const std::string& root) { return probe_resctrl(io, root, m.mounts_file(root)); };
  build_resctrl(t.path() + "/amd", {.amd = true});
  const auto amd = probe(t.path() + "/amd");
  EXPECT_TRUE(amd.mba) << amd.problem;
  EXPECT_EQ(amd.unit, MbUnit::kAmdEighthGbs);
  EXPECT_EQ(amd.max, 0) << "AMD's maximum is in no info file: read from a new group, never assumed";
  EXPECT_EQ(mb_set_value(amd, 1000, nullptr), 1000);
  build_resctrl(t.path() + "/l3", {.mba = false});
  const auto l3 = probe(t.path() + "/l3");
  EXPECT_FALSE(l3.mba);
  EXPECT_NE(l3.problem.find("no Memory Bandwidth Allocation"), std::string::npos) << l3.problem;
  const auto none = probe(t.path() + "/absent");
  EXPECT_FALSE(none.mounted);
  EXPECT_NE(none.problem.find("not mounted"), std::string::npos) << none.problem;
}

// The unit comes from the mount options and info/MB, never from the numbers: an Intel default
// group an admin capped at 2000 MiB/s under mba_MBps was taken for AMD's 1/8 GB/s.
TEST(ResctrlProbe, TheUnitComesFromTheMountOptionsAndInfoFiles) {
  TempDir t;
  RealSysfs io;
  ResctrlModel m;
  const auto probe = [&](const std::string& root) { return probe_resctrl(io, root, m.mounts_file(root)); };
  const std::string mbps = t.path() + "/mbps";
  build_resctrl(mbps, {.mba_mbps = true, .default_mb = 2000});
  auto info = probe(mbps);
  ASSERT_TRUE(info.mba) << info.problem;
  EXPECT_EQ(info.unit, MbUnit::kMiBps);
  EXPECT_EQ(mb_unit_name(info.unit), "MiB/s");
  EXPECT_EQ(info.max, kMbMaxMiBps);
  EXPECT_EQ(mb_set_value(info, 2000, nullptr), 2000);
  EXPECT_EQ(mb_set_value(info, 15, nullptr), 15) << "the software controller does not round";
  // The kernel agrees: the value is kept as it is.
  m.make_group(mbps, "g");
  EXPECT_EQ(get(mbps + "/g/schemata"), "L3:0=fff;1=fff\nMB:0=4294967295;1=4294967295");
  m.write(mbps + "/g/schemata", mb_schemata_line(info.domains, 15));
  EXPECT_EQ(parse_mb_line(get(mbps + "/g/schemata")).at(0).value, 15);
  // The same numbers without mba_MBps on an Intel part: percent, and 2000 is refused.
  const std::string pct = t.path() + "/pct";
  build_resctrl(pct, {.default_mb = 100});
  info = probe(pct);
  EXPECT_EQ(info.unit, MbUnit::kPercent);
  std::string why;
  EXPECT_EQ(mb_set_value(info, 2000, &why), std::nullopt);
  // A tree no mount table shows as resctrl has no known unit: refused, not guessed.
  put(pct + "/.model/mounts", "sysfs /sys sysfs rw 0 0\n");
  info = probe(pct);
  EXPECT_FALSE(info.mba);
  EXPECT_NE(info.problem.find("shows no resctrl file system mounted there"), std::string::npos) << info.problem;
  // A non-linear Intel part (delay_linear 0 beside thread_throttle_mode) is refused by the kernel.
  build_resctrl(pct, {});
  put(pct + "/info/MB/delay_linear", "0");
  info = probe(pct);
  EXPECT_FALSE(info.mba);
  EXPECT_NE(info.problem.find("not linear"), std::string::npos) << info.problem;
}

TEST(ResctrlProbe, MountOptionsAreReadForTheRootOnly) {
  const std::string table = "resctrl /sys/fs/resctrl resctrl rw,relatime 0 0\n"
                            "resctrl /mnt/my\\040rc resctrl rw,mba_MBps 0 0\n"
                            "tmpfs /mnt/fake tmpfs rw,mba_MBps 0 0\n";
  EXPECT_EQ(resctrl_mount_options(table, "/sys/fs/resctrl"), "rw,relatime");
  EXPECT_EQ(resctrl_mount_options(table, "/mnt/my rc"), "rw,mba_MBps");
  EXPECT_EQ(resctrl_mount_options(table, "/mnt/fake"), std::nullopt) << "not a resctrl file system";
  EXPECT_EQ(resctrl_mount_options(table, "/sys/fs"), std::nullopt);
}

// mkdir refusals keep the kernel's reason: CLOSIDs and RMIDs run out (an rmdir'd group's RMID
// stays in limbo: EBUSY), and the reason is escaped for the terminal.
TEST_F(ResctrlDouble, MkdirRefusalsSayTheKernelsReason) {
  build_resctrl(root, {.num_closids = 8, .num_rmids = 3});
  make_resctrl_group(m, io, root, "a");
  make_resctrl_group(m, io, root, "b");
  auto refusal = [&](const std::string& name) {
    try {
      make_resctrl_group(m, io, root, name);
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(refusal("c").find("No space left on device (kernel: Out of RMIDs)"), std::string::npos) << refusal("c");
  m.remove_group(root, "a");  // its RMID goes to limbo, not back to the free list
  EXPECT_NE(refusal("c").find("Device or resource busy (kernel: Out of RMIDs)"), std::string::npos) << refusal("c");
  build_resctrl(root, {.num_closids = 2});  // `b` and the default group hold both
  EXPECT_NE(refusal("c").find("No space left on device (kernel: Out of CLOSIDs)"), std::string::npos) << refusal("c");
  put(root + "/info/last_cmd_status", "\x1b]0;owned\x07Out of CLOSIDs\n");
  EXPECT_NE(resctrl_kernel_reason(io, root).find("\\x1b]0;owned\\x07Out of CLOSIDs"), std::string::npos)
      << resctrl_kernel_reason(io, root);
  EXPECT_EQ(resctrl_kernel_reason(io, root).find('\x1b'), std::string::npos);
}

// A new group starts at the kernel's maximum: how AMD's (1 << CPUID EAX, in no info file) is read.
TEST(ResctrlProbe, ANewGroupShowsTheKernelsMaximum) {
  TempDir t;
  RealSysfs io;
  ResctrlModel m;
  const std::string root = t.path() + "/amd";
  build_resctrl(root, {.amd = true, .amd_max = 4096, .default_mb = 600});
  const auto fresh = make_resctrl_group(m, io, root, "g");
  ASSERT_EQ(fresh.size(), 2u);
  EXPECT_EQ(fresh[0].value, 4096);
  EXPECT_EQ(mb_values_over_max({4096, 100}, fresh[0].value, "1/8 GB/s"), "");
  EXPECT_NE(mb_values_over_max({5000, 100}, fresh[0].value, "1/8 GB/s").find("5000 is above this node's maximum MB: "
                                                                               "value 4096 (1/8 GB/s"),
            std::string::npos);
}

TEST_F(ResctrlDouble, ARefusedSchemataRemovesTheNewGroupAndSaysTheKernelsReason) {
  try {
    create_resctrl_group(m, io, root, "hpcsens-x-p00", "MB:0=5");
    FAIL() << "accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("MB value 5 out of range"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(root + "/hpcsens-x-p00"));
  EXPECT_EQ(remove_resctrl_group(m, root, "hpcsens-x-p00"), "");  // gone already is fine
}

TEST(ResctrlGroupNames, ARestoreRemovesOnlyItsOwnSweepsGroups) {
  EXPECT_EQ(resctrl_group_name("ab12-7"), "hpcsens-ab12-7");
  EXPECT_EQ(resctrl_group_problem("/sys/fs/resctrl", "hpcsens-ab12-7", "ab12-7"), "");
  EXPECT_EQ(resctrl_group_problem("/sys/fs/resctrl", "hpcsens-ab12-7-p03", "ab12-7"), "") << "an older journal's";
  EXPECT_NE(resctrl_group_problem("/sys/fs/resctrl", "hpcsens-ab12-7-px", "ab12-7"), "");
  EXPECT_NE(resctrl_group_problem("/sys/fs/resctrl", "hpcsens-other-p03", "ab12-7"), "");
  EXPECT_NE(resctrl_group_problem("/sys/fs/resctrl", "batch_jobs", "ab12-7"), "");
  EXPECT_NE(resctrl_group_problem("/sys/fs/resctrl", "hpcsens-ab12-7-p03/../x", "ab12-7"), "");
  EXPECT_NE(resctrl_group_problem("/sys/fs/../resctrl", "hpcsens-ab12-7-p03", "ab12-7"), "");
  EXPECT_NE(resctrl_group_problem("/sys/fs/resctrl", "hpcsens-ab12-7-p03", ""), "");
}

}  // namespace
}  // namespace hpcsens::sweep
