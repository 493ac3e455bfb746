// Journal: append + fsync, torn last line, replay rules that --resume and --restore rely on.
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>

#include "common/errors.h"

#include "fake_sysfs.h"
#include "sweep/journal/journal.h"

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

// The run modules a sweep forked: replayed with their identity; a wrong type is bad input.
TEST(SweepJournal, ChildLinesKeepPidStartTimeAndBoot) {
  const auto st = replay_journal(std::vector<nlohmann::json>{
      {{"type", "child"}, {"pid", 4242}, {"start", 123456789012ULL}, {"boot", "b-1"}}});
  ASSERT_EQ(st.children.size(), 1u);
  EXPECT_EQ(st.children[0].pid, 4242);
  EXPECT_EQ(st.children[0].start_ticks, 123456789012ULL);
  EXPECT_EQ(st.children[0].boot_id, "b-1");
  for (const auto& bad : {nlohmann::json{{"type", "child"}, {"pid", "1"}, {"start", 1}, {"boot", "b"}},
                          nlohmann::json{{"type", "child"}, {"pid", 0}, {"start", 1}, {"boot", "b"}},
                          nlohmann::json{{"type", "child"}, {"pid", 5}, {"start", -1}, {"boot", "b"}},
                          nlohmann::json{{"type", "child"}, {"pid", 5}, {"start", 1}}})
    EXPECT_THROW(replay_journal(std::vector<nlohmann::json>{bad}), InputError) << bad.dump();
}

// /proc/<pid>/stat: the command name may hold blanks and parentheses; field 22 is the start.
TEST(ProcessIdentity, StartTimeIsCountedAfterTheCommandsLastParenthesis) {
  unsigned long long ticks = 0;
  const std::string fields = " S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 987654 19 20";
  ASSERT_TRUE(start_ticks_of_stat("77 (a) b (c" + std::string(")") + fields, &ticks));
  EXPECT_EQ(ticks, 987654u);
  EXPECT_FALSE(start_ticks_of_stat("77 (short) S 1 2", &ticks));
  EXPECT_FALSE(start_ticks_of_stat("no parenthesis", &ticks));
}

TEST(ProcessIdentity, OwnProcessRunsAndAnotherStartTimeDoesNot) {
  auto me = identify_process(::getpid());
  ASSERT_EQ(me.pid, ::getpid());
  EXPECT_FALSE(me.boot_id.empty());
  EXPECT_TRUE(still_running(me));
  me.start_ticks += 1;  // a later process that reused the pid
  EXPECT_FALSE(still_running(me));
  EXPECT_EQ(identify_process(0).pid, 0);
}

}  // namespace
}  // namespace hpcsens::sweep
