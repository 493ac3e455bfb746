// Text tables (report/table.h): a path too long for its column keeps its right end, so the file
// names that tell the rows apart stay visible (the file table cut every path to its first 13
// characters: every row read "/tmp/hpcsens-...").
#include <gtest/gtest.h>

#include <sstream>

#include "report/table.h"

namespace hpcsens::report {
namespace {

TEST(TextTable, LongPathsAreShortenedFromTheLeft) {
  Table t;
  t.header = {"file", "interface", "bytes written", "bytes read", "I/O time [s]", "sync [s]", "meta [s]", "note"};
  t.numeric = {false, false, true, true, true, true, true, false};
  const std::string dir = "/tmp/hpcsens-files-123456/some/deep/run/directory/of/the/job/";
  for (const char* name : {"result.dat", "checkpoint.h5", "log.txt"})
    t.rows.push_back({dir + name, "stdio", "268435456", "0", "0.211", "0.16", "0.001",
                      "a long explanatory note that wraps onto the next line of its cell"});
  const std::string text = render(t, Format::kTable);
  std::istringstream in(text);
  std::string line;
  int rows = 0;
  for (const char* name : {"result.dat", "checkpoint.h5", "log.txt"}) {
    EXPECT_NE(text.find(std::string("/") + name), std::string::npos) << name << " is cut off:\n" << text;
  }
  while (std::getline(in, line)) {
    EXPECT_LE(line.size(), kTextWidth) << line;
    if (line.find("...") != std::string::npos) ++rows;
  }
  EXPECT_EQ(rows, 3) << text;  // each row shortened once, from the left
  EXPECT_EQ(text.find(dir.substr(0, 13)), std::string::npos) << "cut from the right:\n" << text;
}

// The compact file table of an mpi4py job (Debian's python3, 2 ranks): 11 columns with a long path.
// The numbers and their units stay whole and headers wrap between words; it read "1.00" / "MiB" on
// two lines and "per" / "writ" / "e" as the last header.
TEST(TextTable, NumbersKeepTheirUnitsAndHeadersWrapBetweenWords) {
  Table t;
  t.header = {"file", "interface", "ranks", "time [s]", "read [s]", "write [s]", "sync [s]", "meta [s]",
              "read", "written", "per write"};
  t.numeric = {false, false, true, true, true, true, true, true, true, true, true};
  t.rows.push_back({"/usr/lib/python3/dist-packages/mpi4py/__pycache__/__init__.cpython-311.pyc", "posix",
                    "2 shared", "0.0348", "0.0347", "0.0000", "0.0000", "0.0001", "152 KiB", "0 B", "-"});
  t.rows.push_back({"/tmp/answers/py/out_0.bin", "posix", "rank 0", "0.0230", "0.0000", "0.0228", "0.0000", "0.0002",
                    "0 B", "16.0 MiB", "1.00 MiB"});
  const std::string text = render(t, Format::kTable);
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    EXPECT_LE(line.size(), kTextWidth) << line;
  }
  for (const char* whole : {"1.00 MiB", "16.0 MiB", "152 KiB", "2 shared", "__init__.cpython-311.pyc"})
    EXPECT_NE(text.find(whole), std::string::npos) << whole << " is split:\n" << text;
  EXPECT_EQ(text.find("writ\n"), std::string::npos) << "a header cut inside a word:\n" << text;
}

TEST(TextTable, AWordThatIsNotAPathKeepsItsStart) {
  Table t;
  t.header = {"name", "a", "b", "c", "d", "e", "f", "g"};
  const std::string word(200, 'x');
  t.rows.push_back({"MPI_Allreduce_with_a_very_long_suffix" + word, "1", "2", "3", "4", "5", "6", "7"});
  const std::string text = render(t, Format::kTable);
  EXPECT_NE(text.find("MPI_Allreduce_with"), std::string::npos) << text;
}

}  // namespace
}  // namespace hpcsens::report
