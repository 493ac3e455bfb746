// Open MPI appfiles: which lines start an app context (as mpirun 4.1 reads them: blank-separated
// words, '#' to the end of the line is a comment), what is refused with its line, and the
// rewritten copy: the user's lines byte for byte, our -x options in front of each context line.
#include "mpi/appfile.h"

#include <gtest/gtest.h>

namespace hpcsens::mpi {
namespace {

Appfile parsed(const std::string& text) {
  Appfile a;
  int line = -1;
  std::string why;
  EXPECT_TRUE(parse_appfile(text, &a, &line, &why)) << why;
  return a;
}

TEST(Appfile, FindsTheAppOptionOnlyAmongMpirunsOwnWords) {
  EXPECT_EQ(appfile_argument({"mpirun", "--oversubscribe", "--app", "f"}), 3u);
  EXPECT_EQ(appfile_argument({"mpirun", "-app", "f"}), 2u);
  EXPECT_EQ(appfile_argument({"mpirun", "-np", "1", "prog", "--app"}), 0u) << "no value";
  EXPECT_EQ(appfile_argument({"mpirun", "-np", "1", "a", ":", "--app", "f"}), 0u);
  EXPECT_EQ(appfile_argument({"mpirun", "-np", "2", "prog"}), 0u);
  // The program's own --app (after its name) is its argument, not mpirun's (issue 22).
  EXPECT_EQ(appfile_argument({"mpirun", "-np", "2", "./prog", "--app", "in.txt"}), 0u);
  EXPECT_EQ(appfile_argument({"mpirun", "--mca", "btl", "self", "-x", "A=1", "./prog", "-app", "x"}), 0u);
  EXPECT_EQ(appfile_argument({"mpirun", "--mca", "btl", "self", "--app", "f"}), 5u) << "two values of --mca skipped";
}

// A line that fits Open MPI's 8 KiB buffer keeps fitting: only "-x NAME" travels in the line
// (values in mpirun's environment), except LD_PRELOAD; a line that would not fit is found.
TEST(Appfile, LinesStayUnderOpenMpisLimitOrAreFound) {
  const std::string user(kOpenMpiAppfileLine - 120, 'a');
  const std::string long_value(10000, 'v');
  const auto out = rewrite_appfile(parsed("-np 1 ./p " + user + "\n"), {{"LD_PRELOAD", "/usr/lib/p.so"},
                                                                        {"HPCSENS_COMMAND", long_value}});
  EXPECT_EQ(out.find(long_value), std::string::npos) << "the long value goes by name";
  EXPECT_EQ(appfile_line_over_limit(out), 0);
  EXPECT_EQ(appfile_line_over_limit("ok\n" + std::string(kOpenMpiAppfileLine + 1, 'x') + "\n"), 2);
  EXPECT_EQ(appfile_line_over_limit(std::string(kOpenMpiAppfileLine, 'x')), 0);
}

TEST(Appfile, ContextLinesAreThoseWithWordsBeforeAnyComment) {
  const auto a = parsed("# header\n-np 1 ./a x  # trailing\n\n   \t\n  # indented\n-np  2 ./b\n");
  ASSERT_EQ(a.contexts.size(), 2u);
  EXPECT_EQ(a.contexts[0].line, 2);
  EXPECT_EQ(a.contexts[0].words, (std::vector<std::string>{"-np", "1", "./a", "x"}));
  EXPECT_EQ(a.contexts[1].line, 6);
  EXPECT_EQ(a.contexts[1].words, (std::vector<std::string>{"-np", "2", "./b"}));
}

TEST(Appfile, RefusesWhatItCannotReadNamingTheLine) {
  Appfile a;
  int line = 0;
  std::string why;
  EXPECT_FALSE(parse_appfile(std::string("-np 1 ./a\n-np 1 ./b\0c\n", 21), &a, &line, &why));
  EXPECT_EQ(line, 2);
  EXPECT_NE(why.find("NUL"), std::string::npos);
  EXPECT_FALSE(parse_appfile("-np 1 ./a\n" + std::string(kMaxAppfileLine + 1, 'x') + "\n", &a, &line, &why));
  EXPECT_EQ(line, 2);
  EXPECT_NE(why.find("longer than"), std::string::npos);
  EXPECT_FALSE(parse_appfile("# only a comment\n\n", &a, &line, &why));
  EXPECT_EQ(line, 0);
  EXPECT_NE(why.find("no app context"), std::string::npos);
  EXPECT_FALSE(parse_appfile("", &a, &line, &why));
}

TEST(Appfile, RewriteKeepsEveryLineAndPutsTheSettingsInFrontOfEachContext) {
  const std::string text = "# two contexts\n-np 1 ./a 'q x'\n\n  -np 1 ./b # c\n";
  const auto out = rewrite_appfile(parsed(text), {{"LD_PRELOAD", "/l/p.so"}, {"HPCSENS_OUT", "/dir with blank"},
                                                  {"HPCSENS_COMMAND", "[\"a#b\"]"}});
  EXPECT_EQ(out, "# two contexts\n"
                 "-x LD_PRELOAD=/l/p.so -x HPCSENS_OUT -x HPCSENS_COMMAND -np 1 ./a 'q x'\n"
                 "\n"
                 "-x LD_PRELOAD=/l/p.so -x HPCSENS_OUT -x HPCSENS_COMMAND   -np 1 ./b # c\n");
  // Re-reading the copy finds the same contexts with our words first.
  const auto again = parsed(out);
  ASSERT_EQ(again.contexts.size(), 2u);
  EXPECT_EQ(again.contexts[1].words.back(), "./b");
}

TEST(Appfile, NoFinalNewlineStaysThatWay) {
  EXPECT_EQ(rewrite_appfile(parsed("-np 1 ./a"), {{"A", "1"}}), "-x A -np 1 ./a");
}

TEST(Appfile, ValuesThatABlankOrCommentWouldCutGoByName) {
  EXPECT_TRUE(inline_in_appfile("/usr/lib/x.so:/y.so"));
  for (const char* v : {"a b", "a\tb", "a#b", "a\nb", "a\rb"}) EXPECT_FALSE(inline_in_appfile(v)) << v;
}

}  // namespace
}  // namespace hpcsens::mpi
