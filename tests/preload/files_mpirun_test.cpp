// Issue 20 item 2 under a real mpirun: the per-file I/O table of programs whose files are known
// (prog_files.c, prog_iostream.cpp): exact bytes, operations, access sizes and access pattern per
// file and interface; relative paths made absolute; /dev/null and /proc absent; per-file sums
// equal to the per-call totals; a full table counts its drops.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/preload/mpirun_fixture.h"

using nlohmann::json;

namespace {

class FilesMpirun : public hpcsens::test::MpirunFixture {
 protected:
  void SetUp() override {
    MpirunFixture::SetUp();
    std::ofstream(dir_ + "/shared.dat", std::ios::binary) << std::string(4096, 'd');
    canon_ = std::filesystem::canonical(dir_).string();
  }
  // The rank's entry of (path, interface), or null.
  static json entry(const json& rank, const std::string& path, const std::string& api) {
    for (const json& f : rank.at("files"))
      if (f.at("path") == path && f.at("interface") == api) return f;
    return nullptr;
  }
  static json sizes(std::initializer_list<int> counts) { return json(std::vector<int>(counts)); }
  std::string canon_;
};

std::uint64_t n(const json& j, const char* k) { return j.at(k).get<std::uint64_t>(); }

TEST_F(FilesMpirun, EachFileExactPerRankAndInterface) {
  ASSERT_EQ(mpirun(2, PROG_FILES), 0) << log();
  const json rec = record();
  ASSERT_EQ(rec.at("ranks").size(), 2u);
  for (const json& r : rec.at("ranks")) {
    const std::string rank = std::to_string(r.at("rank").get<int>());
    SCOPED_TRACE("rank " + rank);
    EXPECT_EQ(r.at("files_dropped"), 0);
    // Opened as "unique.R" in DIR: recorded as the kernel's absolute name.
    const json u = entry(r, canon_ + "/unique." + rank, "posix");
    ASSERT_FALSE(u.is_null()) << r.at("files").dump(1);
    EXPECT_EQ(n(u, "opens"), 1u);
    EXPECT_EQ(n(u, "writes"), 16u);
    EXPECT_EQ(n(u, "reads"), 0u);
    EXPECT_EQ(n(u, "meta_ops"), 1u);  // close
    EXPECT_EQ(n(u, "bytes_written"), 10450u);
    EXPECT_EQ(u.at("write_sizes"), sizes({6, 10, 0, 0, 0, 0, 0, 0, 0, 0}));
    EXPECT_EQ(u.at("read_sizes"), sizes({0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
    EXPECT_EQ(n(u, "consecutive"), 14u);
    EXPECT_EQ(n(u, "sequential"), 1u);
    EXPECT_EQ(n(u, "random"), 1u);
    EXPECT_GT(u.at("write_s").get<double>(), 0.0);
    EXPECT_GE(u.at("last_io_s").get<double>(), u.at("first_open_s").get<double>());
    // Opened by its absolute name as given.
    const json s = entry(r, dir_ + "/shared.dat", "posix");
    ASSERT_FALSE(s.is_null()) << r.at("files").dump(1);
    EXPECT_EQ(n(s, "reads"), 5u);
    EXPECT_EQ(n(s, "bytes_read"), 4096u);
    EXPECT_EQ(n(s, "writes"), 0u);
    EXPECT_EQ(s.at("read_sizes"), sizes({1, 4, 0, 0, 0, 0, 0, 0, 0, 0}));
    EXPECT_EQ(n(s, "consecutive"), 5u);
    const json st = entry(r, canon_ + "/stream." + rank, "stdio");
    ASSERT_FALSE(st.is_null()) << r.at("files").dump(1);
    EXPECT_EQ(n(st, "bytes_written"), 6000u);
    EXPECT_EQ(n(st, "writes"), 3u);
    EXPECT_EQ(n(st, "opens"), 1u);
    EXPECT_EQ(n(st, "meta_ops"), 1u);  // fclose
    EXPECT_EQ(st.at("write_sizes"), sizes({0, 0, 3, 0, 0, 0, 0, 0, 0, 0}));
    // A space and the byte 0xE9 (not UTF-8): stored losslessly as "\xe9" (text_escape.h).
    const json odd = entry(r, canon_ + "/sp ace\\xe9." + rank, "posix");
    ASSERT_FALSE(odd.is_null()) << r.at("files").dump(1);
    EXPECT_EQ(n(odd, "bytes_written"), 7u);
    // MPI-IO: the relative name made absolute with the working directory.
    const json m = entry(r, canon_ + "/mpiio.dat", "mpiio");
    ASSERT_FALSE(m.is_null()) << r.at("files").dump(1);
    EXPECT_EQ(n(m, "opens"), 1u);
    EXPECT_EQ(n(m, "writes"), 1u);
    EXPECT_EQ(n(m, "bytes_written"), 1000u);
    EXPECT_EQ(n(m, "meta_ops"), 1u);  // MPI_File_close
    EXPECT_EQ(m.at("write_sizes"), sizes({0, 1, 0, 0, 0, 0, 0, 0, 0, 0}));
    for (const json& f : r.at("files")) {
      const std::string p = f.at("path");
      EXPECT_FALSE(p.starts_with("/dev/") || p.starts_with("/proc/")) << p;
    }
    EXPECT_EQ(r.at("files").size(), 5u) << r.at("files").dump(1);
  }
}

TEST_F(FilesMpirun, PerFileSumsEqualPerCallTotals) {
  ASSERT_EQ(mpirun(2, PROG_FILES), 0) << log();
  for (const json& r : record().at("ranks")) {
    SCOPED_TRACE("rank " + std::to_string(r.at("rank").get<int>()));
    std::uint64_t ops = 0, bytes = 0, reads = 0, writes = 0;
    double seconds = 0;
    for (const json& f : r.at("files")) {
      ops += n(f, "opens") + n(f, "reads") + n(f, "writes") + n(f, "meta_ops") + n(f, "syncs");
      bytes += n(f, "bytes_read") + n(f, "bytes_written");
      reads += n(f, "reads"), writes += n(f, "writes");
      seconds += f.at("read_s").get<double>() + f.at("write_s").get<double>() + f.at("meta_s").get<double>() +
                 f.at("sync_s").get<double>();
      // Every access of a descriptor is consecutive, sequential or random, once.
      if (f.at("interface") != "mpiio")
        EXPECT_EQ(n(f, "consecutive") + n(f, "sequential") + n(f, "random"), n(f, "reads") + n(f, "writes"));
    }
    std::uint64_t calls = 0, call_bytes = 0;
    for (const auto& [name, c] : r.at("io_calls").items()) calls += n(c, "count"), call_bytes += n(c, "bytes");
    EXPECT_EQ(ops, calls) << r.at("io_calls").dump(1);
    EXPECT_EQ(bytes, call_bytes);
    EXPECT_EQ(bytes, n(r, "io_bytes_read") + n(r, "io_bytes_written"));
    EXPECT_EQ(reads + writes, 5u + 16u + 3u + 1u + 1u);
    EXPECT_NEAR(seconds, r.at("io_s").get<double>(), 1e-9 + 1e-6 * r.at("io_s").get<double>());
  }
}

TEST_F(FilesMpirun, IostreamBytesUnderPosixOnce) {
  ASSERT_EQ(mpirun(2, PROG_IOSTREAM), 0) << log();
  for (const json& r : record().at("ranks")) {
    const std::string rank = std::to_string(r.at("rank").get<int>());
    SCOPED_TRACE("rank " + rank);
    // std::ofstream / std::ifstream open with fopen64 and move bytes with write/writev/read on the
    // stream's descriptor: each call counts under the interface called (issue 29), the opens and
    // closes as stdio, the bytes once, as posix.
    const json s = entry(r, dir_ + "/stream." + rank, "stdio");  // absolute as given
    ASSERT_FALSE(s.is_null()) << r.at("files").dump(1);
    EXPECT_EQ(n(s, "opens"), 2u);
    EXPECT_EQ(n(s, "bytes_written") + n(s, "bytes_read"), 0u);
    const json p = entry(r, dir_ + "/stream." + rank, "posix");
    ASSERT_FALSE(p.is_null()) << r.at("files").dump(1);
    EXPECT_EQ(n(p, "bytes_written"), 100012u);
    EXPECT_EQ(n(p, "bytes_read"), 100012u);
    EXPECT_EQ(r.at("files").size(), 2u) << r.at("files").dump(1);  // not /dev/null, /proc, the pipe
  }
}

TEST_F(FilesMpirun, FortranMpiIoPerFile) {
  ASSERT_EQ(mpirun(2, PROG_FILES_F), 0) << log();
  for (const json& r : record().at("ranks")) {
    SCOPED_TRACE("rank " + std::to_string(r.at("rank").get<int>()));
    // The blank-padded name, made absolute; counted once, by the Fortran wrapper (Open MPI's
    // Fortran layer calls the C PMPI_File_* inside it).
    const json m = entry(r, canon_ + "/fmpiio.dat", "mpiio");
    ASSERT_FALSE(m.is_null()) << r.at("files").dump(1);
    EXPECT_EQ(n(m, "opens"), 1u);
    EXPECT_EQ(n(m, "writes"), 1u);
    EXPECT_EQ(n(m, "bytes_written"), 1000u);
    EXPECT_EQ(n(m, "reads"), 1u);
    EXPECT_EQ(n(m, "bytes_read"), 500u);
    EXPECT_EQ(n(m, "meta_ops"), 1u);  // MPI_FILE_CLOSE
    EXPECT_EQ(m.at("write_sizes"), sizes({0, 1, 0, 0, 0, 0, 0, 0, 0, 0}));
    EXPECT_EQ(m.at("read_sizes"), sizes({0, 1, 0, 0, 0, 0, 0, 0, 0, 0}));
    std::uint64_t call_bytes = 0;
    for (const auto& [name, c] : r.at("io_calls").items())
      if (name.starts_with("MPI_File")) call_bytes += n(c, "bytes");
    EXPECT_EQ(call_bytes, 1500u) << r.at("io_calls").dump(1);
  }
}

TEST_F(FilesMpirun, TemporaryFilesAreFilesToo) {
  ASSERT_EQ(mpirun(1, PROG_TMPFILES), 0) << log();
  const json r = record().at("ranks")[0];
  const json& io = r.at("io_calls");
  EXPECT_EQ(n(io.at("mkstemp"), "count"), 1u) << io.dump(1);
  EXPECT_EQ(n(io.at("mkostemps"), "count"), 1u);
  EXPECT_EQ(n(io.at("tmpfile"), "count"), 1u);
  EXPECT_EQ(n(io.at("write"), "bytes"), 4096u + 100u);
  EXPECT_EQ(n(io.at("read"), "bytes"), 4096u);
  EXPECT_EQ(n(io.at("fwrite"), "bytes"), 4096u);
  EXPECT_EQ(n(io.at("fread"), "bytes"), 4096u);
  std::uint64_t posix_written = 0, stdio_written = 0;
  for (const json& f : r.at("files")) {
    const std::string p = f.at("path");
    if (f.at("interface") == "posix") {
      EXPECT_TRUE(p.starts_with(dir_ + "/tmp") || p.starts_with(dir_ + "/suf")) << p;  // as made
      posix_written += n(f, "bytes_written");
    } else {
      stdio_written += n(f, "bytes_written");
      EXPECT_EQ(n(f, "bytes_read"), 4096u) << p;
    }
  }
  EXPECT_EQ(r.at("files").size(), 3u) << r.at("files").dump(1);
  EXPECT_EQ(posix_written, 4196u);
  EXPECT_EQ(stdio_written, 4096u);
}

// The row of the HTML table whose first cell is `path` ("" when none).
std::string html_row(const std::string& page, const std::string& path) {
  const auto at = page.find("<tr><td>" + path + "</td>");
  return at == std::string::npos ? "" : page.substr(at, page.find("</tr>", at) - at);
}

TEST_F(FilesMpirun, ReportShowsTheFilesOfTheRecord) {
  ASSERT_EQ(mpirun(2, PROG_FILES), 0) << log();
  const std::string rec = run_file(dir_, "m1", ".json");
  const json ranks = record().at("ranks");
  // Text (hpcsens run prints the same: report/run_report_file.h).
  ASSERT_EQ(sh(std::string(HPCSENS_BIN) + " report " + rec), 0) << log();
  const std::string text = log();
  EXPECT_NE(text.find("Files by I/O time (top 8 of 8;"), std::string::npos) << text;
  EXPECT_NE(text.find("ace\\xe9.1"), std::string::npos) << text;  // lossless, escaped
  EXPECT_EQ(text.find("\xe9"), std::string::npos);  // never the raw byte
  // Tidy CSV: one row per rank x file x interface, the record's numbers.
  ASSERT_EQ(sh(std::string(HPCSENS_BIN) + " report " + rec + " --format csv --table files"), 0) << log();
  const std::string csv = log();
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 10) << csv;
  EXPECT_NE(csv.find("\n1," + canon_ + "/unique.1,posix,1,0,16,1,0,0,10450,"), std::string::npos) << csv;
  // HTML: the merged table, rows as the JSON says.
  const std::string page = dir_ + "/page.html";
  ASSERT_EQ(sh(std::string(HPCSENS_BIN) + " report " + rec + " --format html -o " + page), 0) << log();
  std::ifstream in(page);
  const std::string html((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(html.find("Files by I/O time"), std::string::npos);
  const std::string shared = html_row(html, dir_ + "/shared.dat");
  ASSERT_FALSE(shared.empty()) << html;
  EXPECT_NE(shared.find(">2 shared<"), std::string::npos) << shared;
  std::uint64_t reads = 0;
  for (const json& r : ranks) reads += n(entry(r, dir_ + "/shared.dat", "posix"), "reads");
  EXPECT_NE(shared.find(">" + std::to_string(reads) + "<"), std::string::npos) << shared;
  const std::string odd = html_row(html, canon_ + "/sp ace\\xe9.0");
  ASSERT_FALSE(odd.empty()) << html;
  EXPECT_NE(odd.find(">rank 0<"), std::string::npos) << odd;
  EXPECT_EQ(html.find("\xe9"), std::string::npos);
}

TEST_F(FilesMpirun, FullTableCountsEveryFileItCannotHold) {
  // 600 more files than the 512 entries hold: each one is either in the table or a drop.
  ASSERT_EQ(mpirun(1, std::string(PROG_FILES) + " many", true, "-x HPCSENS_RANK_BYTES=4194304"), 0) << log();
  const json r = record().at("ranks").at(0);
  std::uint64_t many = 0;
  for (const json& f : r.at("files"))
    if (f.at("path").get<std::string>().starts_with(canon_ + "/many.")) {
      ++many;
      EXPECT_EQ(n(f, "bytes_written"), 1u);
    }
  EXPECT_GT(r.at("files_dropped").get<std::uint64_t>(), 88u - 1);
  EXPECT_EQ(many + r.at("files_dropped").get<std::uint64_t>(), 600u);
  EXPECT_FALSE(r.contains("truncated"));
}

}  // namespace
