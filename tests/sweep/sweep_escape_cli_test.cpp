// Text from files, the kernel and the spec reaches the terminal escaped: a knob file holding an
// escape sequence in the "attempt failed" line, a memory configuration's name in the progress
// lines, a spec value quoted in an input error. No ESC or BEL byte reaches stderr.
#include "sweep_cli_helpers.h"

namespace hpcsens::sweep {
namespace {

using namespace testing;

bool has_raw_control(const std::string& s) {
  return s.find('\x1b') != std::string::npos || s.find('\x07') != std::string::npos;
}

TEST(SweepEscape, AKnobFileHoldingEscapeSequencesPrintsEscapedInTheAttemptFailedLine) {
  TempDir t;
  const std::string root = t.path() + "/sys";
  make_tree(root);
  put(policy_dir(root, 0) + "/scaling_min_freq", "\x1b[31mjunk\x07");
  put(t.path() + "/spec.yaml", knob_spec(root, "[/bin/true]", "order: sequential\n"));
  const auto r = run({kHpcsens, "sweep", t.path() + "/spec.yaml", "-o", t.path() + "/out", "--no-fit"}, t.path(), 60);
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("attempt 1 failed"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("holds '\\x1b[31mjunk\\x07'"), std::string::npos) << r.err;
  EXPECT_FALSE(has_raw_control(r.err)) << r.err;
}

TEST(SweepEscape, ProgressLinesAndInputErrorsShowSpecTextEscaped) {
  TempDir t;
  put(t.path() + "/spec.yaml",
      "emulated: {W_cpu: 6, W_mem: 20, T_io: 1, seed: 2}\n"
      "knobs:\n  cpu_ghz: [1.0]\n  memory: [{name: \"\\e[31mred\\a\", emulated_gbs: 50}]\n");
  auto r = run({kHpcsens, "sweep", t.path() + "/spec.yaml", "-o", t.path() + "/out", "--no-fit"}, t.path(), 60);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("cpu1_\\x1b[31mred\\x07 ok"), std::string::npos) << r.err;
  EXPECT_FALSE(has_raw_control(r.err)) << r.err;
  put(t.path() + "/bad.yaml", "emulated: {W_cpu: 6, W_mem: 20, T_io: 1, mem_gbs: 9}\nknobs: {cpu_ghz: [1.0]}\n"
                              "order: \"\\e]0;owned\\a\"\n");
  r = run({kHpcsens, "sweep", t.path() + "/bad.yaml", "--dry-run"}, t.path(), 60);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("got '\\x1b]0;owned\\x07'"), std::string::npos) << r.err;
  EXPECT_FALSE(has_raw_control(r.err)) << r.err;
}

}  // namespace
}  // namespace hpcsens::sweep
