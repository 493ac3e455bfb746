// Issue 29 under a real mpirun: one attribution rule for I/O. A call belongs to the interface the
// program called (an fsync of a stdio file is posix; a C++ stream's read/write are posix, its
// fopen/fclose stdio), so the record's "io" classes, its per-file table and the report's tables
// and answer add up to the same totals. Fixtures: prog_fsync.c (rank 0 fwrite 16 MiB + fflush +
// fsync, every rank pwrite 8 MiB + fsync) and prog_iostream.cpp (std::ofstream / std::ifstream).
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>

#include "tests/preload/mpirun_fixture.h"
#include "tests/report/chromium_page.h"

using nlohmann::json;

namespace {

class IoAttribution : public hpcsens::test::MpirunFixture {
 protected:
  static json entry(const json& rank, const std::string& path, const std::string& api) {
    for (const json& f : rank.at("files"))
      if (f.at("path") == path && f.at("interface") == api) return f;
    return nullptr;
  }
  std::string canon() const { return std::filesystem::canonical(dir_).string(); }
};

std::uint64_t n(const json& j, const char* k) { return j.at(k).get<std::uint64_t>(); }
double s(const json& j, const char* k) { return j.value(k, 0.0); }
std::string fmt_fixed(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6f", v);
  return buf;
}
double file_seconds(const json& f) { return s(f, "read_s") + s(f, "write_s") + s(f, "meta_s") + s(f, "sync_s"); }

// Each class of the rank's "io" equals the sum of its files of that interface: calls, seconds and
// bytes (every counted call in this program is on a file that is in the table).
void expect_classes_equal_files(const json& r) {
  std::map<std::string, json> files;
  for (const json& f : r.at("files")) {
    json& t = files[f.at("interface").get<std::string>()];
    if (t.is_null()) t = {{"calls", 0}, {"seconds", 0.0}, {"bytes", 0}};
    t["calls"] = n(t, "calls") + n(f, "opens") + n(f, "reads") + n(f, "writes") + n(f, "meta_ops") + n(f, "syncs");
    t["seconds"] = s(t, "seconds") + file_seconds(f);
    t["bytes"] = n(t, "bytes") + n(f, "bytes_read") + n(f, "bytes_written");
  }
  ASSERT_EQ(files.size(), r.at("io").size()) << r.at("io").dump(1) << r.at("files").dump(1);
  for (const auto& [cls, c] : r.at("io").items()) {
    SCOPED_TRACE(cls);
    ASSERT_TRUE(files.count(cls)) << r.at("files").dump(1);
    EXPECT_EQ(n(c, "calls"), n(files[cls], "calls"));
    EXPECT_EQ(n(c, "bytes"), n(files[cls], "bytes"));
    EXPECT_NEAR(s(c, "seconds"), s(files[cls], "seconds"), 1e-9 + 1e-6 * s(c, "seconds"));
  }
}

TEST_F(IoAttribution, FsyncOfAStdioFileCountsAsPosixInEveryTable) {
  ASSERT_EQ(mpirun(2, PROG_FSYNC), 0) << log();
  const json rec = record();
  for (const json& r : rec.at("ranks")) {
    const int rank = r.at("rank").get<int>();
    SCOPED_TRACE("rank " + std::to_string(rank));
    expect_classes_equal_files(r);
    const json data = entry(r, canon() + "/data." + std::to_string(rank), "posix");
    ASSERT_FALSE(data.is_null()) << r.at("files").dump(1);
    EXPECT_EQ(n(data, "writes"), 8u);
    EXPECT_EQ(n(data, "bytes_written"), 8u << 20);
    EXPECT_EQ(n(data, "syncs"), 1u);       // fsync
    EXPECT_EQ(n(data, "meta_ops"), 1u);    // close (the open is in opens)
    EXPECT_EQ(n(r.at("io_calls").at("fsync"), "count"), rank == 0 ? 2u : 1u);
  }
  const json r0 = rec.at("ranks").at(0).at("rank") == 0 ? rec.at("ranks").at(0) : rec.at("ranks").at(1);
  const json st = entry(r0, canon() + "/result.dat", "stdio");
  ASSERT_FALSE(st.is_null()) << r0.at("files").dump(1);
  EXPECT_EQ(n(st, "writes"), 16u);
  EXPECT_EQ(n(st, "bytes_written"), 16u << 20);
  EXPECT_EQ(n(st, "syncs"), 1u);  // fflush
  EXPECT_EQ(n(st, "opens"), 1u);
  EXPECT_EQ(n(st, "meta_ops"), 1u);  // fclose
  // fsync(fileno(f)): the program called POSIX, so the file's posix row has it, as "io" does.
  const json px = entry(r0, canon() + "/result.dat", "posix");
  ASSERT_FALSE(px.is_null()) << r0.at("files").dump(1);
  EXPECT_EQ(n(px, "syncs"), 1u);
  EXPECT_EQ(n(px, "opens") + n(px, "writes") + n(px, "reads") + n(px, "meta_ops"), 0u);
  EXPECT_GT(s(px, "sync_s"), 0.0);
}

// The first advice item's opening for the operation with the most I/O time (report/headline_io.cpp).
std::string advice_for(const std::string& op, double mean_write) {
  if (op == "sync") return "Sync less often: fsync, fdatasync and fflush took ";
  if (op == "meta") return "Open, close and seek less often";
  if (op == "write") return mean_write < 65536 ? "Write in larger blocks" : "The writes are already large";
  return "Read";
}

TEST_F(IoAttribution, ReportTablesAndAnswerAddUp) {
  ASSERT_EQ(mpirun(2, PROG_FSYNC), 0) << log();
  const std::string rec = run_file(dir_, "m1", ".json");
  ASSERT_EQ(sh(std::string(HPCSENS_BIN) + " report " + rec + " --format json -o " + dir_ + "/report.json"), 0) << log();
  std::ifstream in(dir_ + "/report.json");
  const json j = json::parse(in);
  const json& io = j.at("derived").at("io");
  // "I/O by class" and "Files by I/O time" agree per interface.
  std::map<std::string, double> by_file;
  for (const json& f : j.at("derived").at("files")) by_file[f.at("interface")] += f.at("seconds").get<double>();
  for (const auto& [cls, c] : io.at("by_interface").items())
    EXPECT_NEAR(s(c, "seconds"), by_file[cls], 1e-9 + 1e-6 * s(c, "seconds")) << cls;
  // The answer names the operation that holds the most I/O time, with its figure; 1 MiB writes
  // are never called small.
  std::string top;
  double most = -1;
  for (const auto& [op, c] : io.at("by_operation").items())
    if (s(c, "seconds") > most) most = s(c, "seconds"), top = op;
  const json& w = io.at("by_operation").at("write");
  const double mean_write = static_cast<double>(n(w, "bytes")) / static_cast<double>(n(w, "calls"));
  EXPECT_DOUBLE_EQ(mean_write, 1 << 20);
  const json& answer = j.at("answer");
  // (An oversubscribed or loaded machine puts its own item first; the I/O reading stays.)
  if (answer.at("headline").get<std::string>().find("I/O takes") != std::string::npos) {
    bool named = false;
    for (const json& a : answer.at("advice")) named = named || a.get<std::string>().rfind(advice_for(top, mean_write), 0) == 0;
    EXPECT_TRUE(named) << top << "\n" << answer.dump(1);
  }
  for (const json& a : answer.at("advice")) EXPECT_EQ(a.get<std::string>().find("larger blocks"), std::string::npos) << a;
  // JSON holds every per-rank section the record has.
  for (const json& r : j.at("ranks")) EXPECT_TRUE(r.contains("files") && r.contains("io")) << r.dump(1);
  // Text: sync and metadata time per file in their own columns.
  ASSERT_EQ(sh(std::string(HPCSENS_BIN) + " report " + rec), 0) << log();
  const std::string text = log();
  for (const char* col : {"sync", "meta", "per write"}) EXPECT_NE(text.find(col), std::string::npos) << text;
}

// The page of the fsync job, read back from what headless Chromium rendered: its answer is the
// JSON's answer, and the files table's sync column holds the JSON's sync time of the stdio file's
// posix row (the fsync), to the page's 6 decimals.
TEST_F(IoAttribution, PageReadBackInChromiumMatchesTheJson) {
  ASSERT_EQ(mpirun(2, PROG_FSYNC), 0) << log();
  const std::string rec = run_file(dir_, "m1", ".json");
  ASSERT_EQ(sh(std::string(HPCSENS_BIN) + " report " + rec + " --format json -o " + dir_ + "/report.json"), 0) << log();
  ASSERT_EQ(sh(std::string(HPCSENS_BIN) + " report " + rec + " --format html -o " + dir_ + "/page.html"), 0) << log();
  std::ifstream in(dir_ + "/report.json");
  const json j = json::parse(in);
  const auto dom = hpcsens::testing::dump_dom(dir_ + "/profile", dir_ + "/page.html");
  ASSERT_EQ(dom.exit_status, 0) << dom.err;
  const std::string page = hpcsens::testing::html_unescape(dom.out);
  EXPECT_NE(page.find(j.at("answer").at("headline").get<std::string>()), std::string::npos) << page.substr(0, 3000);
  for (const json& a : j.at("answer").at("advice")) EXPECT_NE(page.find(a.get<std::string>()), std::string::npos) << a;
  double sync_s = -1;
  for (const json& f : j.at("derived").at("files"))
    if (f.at("interface") == "posix" && f.at("path").get<std::string>().ends_with("/result.dat")) sync_s = s(f, "sync_s");
  ASSERT_GT(sync_s, 0.0) << j.at("derived").at("files").dump(1);
  const auto row = page.find("<td>" + canon() + "/result.dat</td><td>posix</td>");
  ASSERT_NE(row, std::string::npos) << page.substr(page.find("Files by I/O time"), 3000);
  const std::string cells = page.substr(row, page.find("</tr>", row) - row);
  EXPECT_NE(cells.find(">" + fmt_fixed(sync_s) + "<"), std::string::npos) << cells;
}

TEST_F(IoAttribution, CxxStreamBytesArePosixInEveryTable) {
  ASSERT_EQ(mpirun(2, PROG_IOSTREAM), 0) << log();
  for (const json& r : record().at("ranks")) {
    const std::string rank = std::to_string(r.at("rank").get<int>());
    SCOPED_TRACE("rank " + rank);
    expect_classes_equal_files(r);
    // libstdc++ opens and closes with fopen64/fclose (stdio) and moves the bytes with
    // read/write/writev (posix): each call under the interface it is.
    const json px = entry(r, dir_ + "/stream." + rank, "posix");
    ASSERT_FALSE(px.is_null()) << r.at("files").dump(1);
    EXPECT_EQ(n(px, "bytes_written"), 100012u);
    EXPECT_EQ(n(px, "bytes_read"), 100012u);
    const json st = entry(r, dir_ + "/stream." + rank, "stdio");
    ASSERT_FALSE(st.is_null()) << r.at("files").dump(1);
    EXPECT_EQ(n(st, "opens"), 2u);
    EXPECT_EQ(n(st, "bytes_written") + n(st, "bytes_read"), 0u);
    EXPECT_EQ(n(r.at("io").at("posix"), "bytes"), 2u * 100012u);
    EXPECT_EQ(n(r.at("io").at("stdio"), "bytes"), 0u);
  }
}

}  // namespace
