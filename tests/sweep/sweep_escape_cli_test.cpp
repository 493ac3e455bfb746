// Text from files, the kernel and the spec reaches the terminal escaped: a knob file holding an
// escape sequence in the "attempt failed" line, a spec value quoted in an input error; a memory
// configuration name that would carry control bytes or commas into labels is refused. No ESC or
// BEL byte reaches stderr.
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

TEST(SweepEscape, SpecTextIsEscapedInInputErrorsAndNamesThatWouldBreakLabelsAreRefused) {
  TempDir t;
  // A memory configuration's name labels the point in results.csv (unquoted) and on the terminal:
  // control characters, commas and double quotes are refused at its line, the name shown escaped.
  put(t.path() + "/spec.yaml",
      "emulated: {W_cpu: 6, W_mem: 20, T_io: 1, seed: 2}\n"
      "knobs:\n  cpu_ghz: [1.0]\n  memory: [{name: \"\\e[31mred\\a\", emulated_gbs: 50}]\n");
  auto r = run({kHpcsens, "sweep", t.path() + "/spec.yaml", "-o", t.path() + "/out", "--no-fit"}, t.path(), 60);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("spec.yaml:4: knobs.memory[0].name: must be at most 128 characters of UTF-8 text without "
                       "control characters, commas or double quotes"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("got '\\x1b[31mred\\x07'"), std::string::npos) << r.err;
  EXPECT_FALSE(has_raw_control(r.err)) << r.err;
  put(t.path() + "/comma.yaml", "emulated: {W_cpu: 6, W_mem: 20, T_io: 1, seed: 2}\n"
                                "knobs:\n  cpu_ghz: [1.0]\n  memory: [{name: 'a,b', emulated_gbs: 50}]\n");
  r = run({kHpcsens, "sweep", t.path() + "/comma.yaml", "--dry-run"}, t.path(), 60);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("knobs.memory[0].name:"), std::string::npos) << r.err;
  // Any other spec value quoted in an error reaches the terminal escaped.
  put(t.path() + "/bad.yaml", "emulated: {W_cpu: 6, W_mem: 20, T_io: 1, mem_gbs: 9}\nknobs: {cpu_ghz: [1.0]}\n"
                              "order: \"\\e]0;owned\\a\"\n");
  r = run({kHpcsens, "sweep", t.path() + "/bad.yaml", "--dry-run"}, t.path(), 60);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("got '\\x1b]0;owned\\x07'"), std::string::npos) << r.err;
  EXPECT_FALSE(has_raw_control(r.err)) << r.err;
}

}  // namespace
}  // namespace hpcsens::sweep
