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
  const auto info = probe_resctrl(io, root);
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
  build_resctrl(t.path() + "/amd", {.amd = true});
  const auto amd = probe_resctrl(io, t.path() + "/amd");
  EXPECT_TRUE(amd.mba);
  EXPECT_EQ(amd.unit, MbUnit::kAmdEighthGbs);
  EXPECT_EQ(amd.max, 2048);
  EXPECT_EQ(mb_set_value(amd, 1000, nullptr), 1000);
  build_resctrl(t.path() + "/l3", {.mba = false});
  const auto l3 = probe_resctrl(io, t.path() + "/l3");
  EXPECT_FALSE(l3.mba);
  EXPECT_NE(l3.problem.find("no Memory Bandwidth Allocation"), std::string::npos) << l3.problem;
  const auto none = probe_resctrl(io, t.path() + "/absent");
  EXPECT_FALSE(none.mounted);
  EXPECT_NE(none.problem.find("not mounted"), std::string::npos) << none.problem;
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
  EXPECT_EQ(resctrl_group_name("ab12-7", 3), "hpcsens-ab12-7-p03");
  EXPECT_EQ(resctrl_group_problem("/sys/fs/resctrl", "hpcsens-ab12-7-p03", "ab12-7"), "");
  EXPECT_NE(resctrl_group_problem("/sys/fs/resctrl", "hpcsens-other-p03", "ab12-7"), "");
  EXPECT_NE(resctrl_group_problem("/sys/fs/resctrl", "batch_jobs", "ab12-7"), "");
  EXPECT_NE(resctrl_group_problem("/sys/fs/resctrl", "hpcsens-ab12-7-p03/../x", "ab12-7"), "");
  EXPECT_NE(resctrl_group_problem("/sys/fs/../resctrl", "hpcsens-ab12-7-p03", "ab12-7"), "");
  EXPECT_NE(resctrl_group_problem("/sys/fs/resctrl", "hpcsens-ab12-7-p03", ""), "");
}

}  // namespace
}  // namespace hpcsens::sweep
