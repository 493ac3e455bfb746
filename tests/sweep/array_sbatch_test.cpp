// The sbatch options of a slurm-array spec: parsed into one argv word each, in a fixed order
// after the controller's own options; bad values are exit-2 errors naming file, line and field.
#include <gtest/gtest.h>

#include "common/errors.h"
#include "sweep/array/slurm_array.h"
#include "sweep/spec/spec.h"

namespace hpcsens::sweep {
namespace {

const std::string kHead =
    "execution: slurm-array\narray_max_running: 3\njob:\n  command: [srun, -N, '2', -n, '4', ./app, -n, '9']\n";

std::string error_of(const std::string& sbatch_section) {
  try {
    parse_spec_text(kHead + sbatch_section, "arr.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ArraySbatch, ArgvCarriesEveryOptionAsOneWord) {
  const auto spec = parse_spec_text(kHead + R"(sbatch:
  partition: batch,debug
  account: proj-42
  time_limit: "1-02:30:00"
  qos: high
  extra: ["--exclusive", "--mem=0", "--comment=a b;$(rm -rf /)'\""]
)", "arr.yaml");
  const auto argv = array_sbatch_argv(spec, {"hpcsens-abc-1", 5, "/d/array/task-1-%a.out", "/d", "/d/array/task-1.sh"});
  const std::vector<std::string> want = {
      "sbatch", "--parsable", "--job-name=hpcsens-abc-1", "--array=0-4%3", "--output=/d/array/task-1-%a.out",
      "--chdir=/d", "--nodes=2", "--ntasks=4", "--partition=batch,debug", "--account=proj-42",
      "--time=1-02:30:00", "--qos=high", "--exclusive", "--mem=0", "--comment=a b;$(rm -rf /)'\"",
      "/d/array/task-1.sh"};
  EXPECT_EQ(argv, want);
}

TEST(ArraySbatch, NoOptionsGiveTheControllersArgvOnly) {
  const auto spec = parse_spec_text(kHead, "arr.yaml");
  const auto argv = array_sbatch_argv(spec, {"n", 1, "o", "c", "s"});
  EXPECT_EQ(argv, (std::vector<std::string>{"sbatch", "--parsable", "--job-name=n", "--array=0-0%3", "--output=o",
                                            "--chdir=c", "--nodes=2", "--ntasks=4", "s"}));
}

TEST(ArraySbatch, TimeFormatsSlurmAccepts) {
  for (const char* t : {"30", "30:00", "2:30:00", "1-0", "1-12", "1-12:30", "1-12:30:15", "UNLIMITED", "INFINITE"})
    EXPECT_EQ(slurm_time_problem(t), "") << t;
  for (const char* t : {"", "1h", "1:60", "1:2:3:4", "-5", "1-", "1--2", "a-1", "1:", " 30"})
    EXPECT_NE(slurm_time_problem(t), "") << t;
}

TEST(ArraySbatch, BadValuesNameFileLineAndField) {
  EXPECT_EQ(error_of("sbatch:\n  partition: '-p'\n"), "arr.yaml:6: sbatch.partition: must not start with '-', got '-p'");
  EXPECT_EQ(error_of("sbatch:\n  partition: 'a,,b'\n"), "arr.yaml:6: sbatch.partition: has an empty name in its comma list");
  EXPECT_EQ(error_of("sbatch:\n  account: 'x y'\n"),
            "arr.yaml:6: sbatch.account: may hold only letters, digits, '_', '-' and '.', got 'x y'");
  EXPECT_EQ(error_of("sbatch:\n  qos: [a]\n"), "arr.yaml:6: sbatch.qos: must be a string");
  EXPECT_EQ(error_of("sbatch:\n  time_limit: 1h\n"),
            "arr.yaml:6: sbatch.time_limit: must be a Slurm time (minutes, M:S, H:M:S, D-H, D-H:M, D-H:M:S or "
            "UNLIMITED), got '1h'");
  EXPECT_EQ(error_of("sbatch:\n  extra: [--exclusive, -p, x]\n"),
            "arr.yaml:6: sbatch.extra[1]: must be a long option starting with -- (e.g. --exclusive or --mem=0), got '-p'");
  EXPECT_EQ(error_of("sbatch:\n  extra:\n    - --mem=0\n    - \"--comment=a\\nb\"\n"),
            "arr.yaml:8: sbatch.extra[1]: must not hold control characters (a newline, a tab)");
  EXPECT_EQ(error_of("sbatch:\n  extra: --exclusive\n"),
            "arr.yaml:6: sbatch.extra: must be a list of sbatch arguments (e.g. [--exclusive])");
  EXPECT_EQ(error_of("sbatch:\n  partitions: x\n"),
            "arr.yaml:6: sbatch.partitions: unknown field (allowed: account, extra, partition, qos, time_limit)");
  EXPECT_EQ(error_of("sbatch:\n  extra: ['--a b']\n"),
            "arr.yaml:6: sbatch.extra[0]: option name may hold only letters, digits and '-', got '--a b'");
}

// getopt_long takes unambiguous prefixes, so --wra is --wrap: refused like the full name.
TEST(ArraySbatch, OptionsTheControllerOwnsAreRefusedAlsoAbbreviated) {
  EXPECT_EQ(error_of("sbatch:\n  extra: ['--wrap=rm -rf /']\n"),
            "arr.yaml:6: sbatch.extra[0]: '--wrap' is (or abbreviates) --wrap, which is not allowed here: the array "
            "runs the controller's fixed batch script, never a command line");
  EXPECT_NE(error_of("sbatch:\n  extra: ['--wra=x']\n").find("'--wra' is (or abbreviates) --wrap"), std::string::npos);
  EXPECT_NE(error_of("sbatch:\n  extra: ['--arr=0-9']\n").find("abbreviates) --array"), std::string::npos);
  EXPECT_NE(error_of("sbatch:\n  extra: ['--job-name=x']\n").find("--job-name"), std::string::npos);
  EXPECT_NE(error_of("sbatch:\n  extra: ['--partition=x']\n").find("use sbatch.partition"), std::string::npos);
  EXPECT_NE(error_of("sbatch:\n  extra: ['--hold']\n").find("held array never runs"), std::string::npos);
  EXPECT_EQ(error_of("sbatch:\n  extra: ['--exclusive', '--mem-per-cpu=100', '--gres=gpu:1', '--constraint=ib']\n"),
            "(no error)");
}

// sbatch.extra is an allow-list: the options a second user found to change identity, timing,
// dependencies, I/O, cluster or container (issue 22) are each refused naming the option; so is an
// allowed option abbreviated (getopt_long would take it, but which option it means depends on
// sbatch's version).
TEST(ArraySbatch, ExtraIsAnAllowListOfResourceOptions) {
  for (const char* opt : {"--uid=1001", "--gid=0", "--begin=now+1hour", "--dependency=afterok:1", "--export=ALL",
                          "--clusters=other", "--container=/c", "--bb=x", "--input=/etc/shadow", "--deadline=now",
                          "--time-min=5", "--get-user-env", "--requeue", "--open-mode=append", "--chdir=/",
                          "--signal=KILL@60", "--nice=-10", "--priority=1", "--mail-user=a@b", "--export-file=/f",
                          "--exclusiv", "--M=x"}) {
    const std::string err = error_of(std::string("sbatch:\n  extra: ['") + opt + "']\n");
    const std::string name = std::string(opt).substr(0, std::string(opt).find('='));
    EXPECT_NE(err.find("arr.yaml:6: sbatch.extra[0]: '" + name + "'"), std::string::npos) << opt << ": " << err;
  }
}

TEST(ArraySbatch, OnlyForSlurmArraySweeps) {
  try {
    parse_spec_text("job:\n  command: [a]\nsbatch:\n  partition: x\n", "loc.yaml");
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "loc.yaml:4: sbatch: is for execution: slurm-array only (a local sweep submits nothing)");
  }
}

}  // namespace
}  // namespace hpcsens::sweep
