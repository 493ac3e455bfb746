// Journal: append + fsync, torn last line, replay rules that --resume and --restore rely on.
#include <gtest/gtest.h>

#include <fstream>

#include "fake_sysfs.h"
#include "sweep/journal.h"

namespace hpcsens::sweep {
namespace {

TEST(SweepJournal, ReplaysDoneFailedSkippedAndTheFirstOriginalsOnly) {
  testing::TempDir t;
  {
    Journal j(t.path());
    j.append({{"type", "header"}, {"runs", {"a", "b", "c"}}});
    j.append({{"type", "originals"}, {"files", {{{"path", "/x"}, {"value", "1"}}}}, {"commands", {{"reset"}}}});
    j.append({{"type", "apply"}});
    j.append({{"type", "run"}, {"id", "a"}, {"status", "ok"}});
    j.append({{"type", "run"}, {"id", "b"}, {"status", "failed"}});
    j.append({{"type", "originals"}, {"files", {{{"path", "/x"}, {"value", "changed-by-us"}}}}});
  }
  {
    // A crash in the middle of a write leaves a torn line; it must not stop the replay.
    std::ofstream(t.path() + "/" + kJournalName, std::ios::app) << "{\"type\":\"run\",\"id\":\"c\",\"sta";
  }
  const auto st = replay_journal(read_journal_lines(t.path() + "/" + kJournalName));
  ASSERT_TRUE(st.header);
  EXPECT_TRUE(st.has_originals);
  ASSERT_EQ(st.originals.size(), 1u);
  EXPECT_EQ(st.originals[0].value, "1");
  // Commands in a journal are kept only to be shown: --restore never runs them.
  EXPECT_EQ(st.unrun_commands, (std::vector<std::vector<std::string>>{{"reset"}}));
  EXPECT_TRUE(st.restore_actions.empty());
  EXPECT_EQ(st.unparsable, 1);  // the torn line is counted, and said once
  EXPECT_TRUE(st.knobs_dirty);
  EXPECT_EQ(st.done, (std::set<std::string>{"a"}));
  EXPECT_EQ(st.failed_attempts.at("b"), 1);
  EXPECT_FALSE(st.finished);
  {
    Journal j(t.path());  // reopening appends
    j.append({{"type", "restored"}});
    j.append({{"type", "skipped"}, {"id", "b"}});
  }
  const auto st2 = replay_journal(read_journal_lines(t.path() + "/" + kJournalName));
  EXPECT_FALSE(st2.knobs_dirty);
  EXPECT_EQ(st2.skipped, (std::set<std::string>{"b"}));
}

// A run whose record was found missing at a resume is journalled "lost": replays after that
// must not count it done again until a new "ok" line says so.
TEST(SweepJournal, LostRunIsNoLongerDoneUntilItRunsAgain) {
  std::vector<nlohmann::json> lines = {{{"type", "run"}, {"id", "a"}, {"status", "ok"}},
                                       {{"type", "run"}, {"id", "b"}, {"status", "ok"}},
                                       {{"type", "lost"}, {"id", "a"}}};
  auto st = replay_journal(lines);
  EXPECT_EQ(st.done, (std::set<std::string>{"b"}));
  lines.push_back({{"type", "run"}, {"id", "a"}, {"status", "ok"}});
  st = replay_journal(lines);
  EXPECT_EQ(st.done, (std::set<std::string>{"a", "b"}));
}

}  // namespace
}  // namespace hpcsens::sweep
