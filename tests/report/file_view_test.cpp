// The job view of per-file I/O (report/file_view.h): merging ranks' entries by (path, interface),
// shared vs unique, the slowest rank, the order, and the refusals of malformed entries.
#include "report/file_view.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "common/errors.h"

namespace hpcsens::report {
namespace {

using nlohmann::json;

json file(const std::string& path, const std::string& api, double write_s, std::uint64_t written,
          std::uint64_t writes = 1) {
  json sizes = json::array({0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
  json w = sizes;
  w[1] = writes;
  return {{"path", path}, {"interface", api}, {"opens", 1}, {"reads", 0}, {"writes", writes}, {"meta_ops", 1},
          {"bytes_read", 0}, {"bytes_written", written}, {"read_s", 0.0}, {"write_s", write_s}, {"meta_s", 0.0},
          {"read_sizes", sizes}, {"write_sizes", w}, {"consecutive", writes}, {"sequential", 0}, {"random", 0},
          {"first_open_s", 0.5}, {"last_io_s", 1.0}};
}

json ranks() {
  return json::array(
      {{{"rank", 0}, {"files_dropped", 0}, {"files", {file("/s/shared", "posix", 0.2, 100), file("/s/a.0", "posix", 0.05, 7)}}},
       {{"rank", 1}, {"files_dropped", 3}, {"files", {file("/s/shared", "posix", 0.5, 200, 2), file("/s/shared", "mpiio", 0.01, 9)}}},
       {{"rank", 2}}});  // a rank without files (an older record)
}

TEST(FileView, MergesRanksByPathAndInterface) {
  const RankFiles f = files_of(ranks(), "rec.json");
  EXPECT_TRUE(f.any);
  EXPECT_EQ(f.dropped, 3u);
  EXPECT_EQ(f.ranks_with_drops, 1);
  ASSERT_EQ(f.files.size(), 4u);
  const auto s = summarize_files(f.files);
  ASSERT_EQ(s.size(), 3u);
  // Most time first: the shared POSIX file (0.7 s), then rank 0's own (0.05 s), then MPI-IO.
  EXPECT_EQ(s[0].path, "/s/shared");
  EXPECT_EQ(s[0].api, "posix");
  EXPECT_TRUE(s[0].shared());
  EXPECT_EQ(s[0].ranks, (std::vector<int>{0, 1}));
  EXPECT_EQ(s[0].counts.bytes_written, 300u);
  EXPECT_EQ(s[0].counts.writes, 3u);
  EXPECT_EQ(s[0].counts.write_sizes[1], 3u);
  EXPECT_EQ(s[0].counts.opens, 2u);
  EXPECT_DOUBLE_EQ(s[0].counts.seconds(), 0.7);
  EXPECT_DOUBLE_EQ(s[0].slowest_s, 0.5);
  EXPECT_EQ(s[0].slowest_rank, 1);
  EXPECT_EQ(s[1].path, "/s/a.0");
  EXPECT_FALSE(s[1].shared());
  EXPECT_EQ(s[2].api, "mpiio");  // same path, other interface: its own row
  EXPECT_EQ(s[2].ranks, (std::vector<int>{1}));
}

TEST(FileView, TextShowsTopFilesDropsAndEscapedPaths) {
  json r = ranks();
  r[0]["files"].push_back(file("/s/new\nline\\xe9", "stdio", 1.0, 5));
  const std::string t = files_text(files_of(r, "rec.json"), Format::kTable);
  EXPECT_NE(t.find("Files by I/O time (top 4 of 4;"), std::string::npos) << t;
  EXPECT_NE(t.find("/s/new\\nline\\xe9"), std::string::npos) << t;  // no raw line break in a cell
  EXPECT_EQ(t.find("new\nline"), std::string::npos) << t;
  EXPECT_NE(t.find("2 shared"), std::string::npos) << t;
  EXPECT_NE(t.find("rank 0"), std::string::npos) << t;
  EXPECT_NE(t.find("3 file(s) on 1 rank(s) did not fit the per-file table"), std::string::npos) << t;
  EXPECT_EQ(files_text(files_of(json::array({{{"rank", 0}}}), "rec.json"), Format::kTable), "");
}

TEST(FileView, CsvHasOneRowPerRankFileAndInterface) {
  json r = ranks();
  r[0]["files"][0]["path"] = "/s/a,b";
  const std::string csv = files_csv(files_of(r, "rec.json"));
  EXPECT_EQ(csv.rfind("rank,path,interface,opens,reads,writes,meta_ops,syncs,bytes_read,bytes_written,read_s,write_s,"
                      "meta_s,sync_s,", 0), 0u) << csv;
  EXPECT_NE(csv.find(",write_size_9\n"), std::string::npos);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 5);
  EXPECT_NE(csv.find("\n0,\"/s/a,b\",posix,1,0,1,1,0,0,100,0,0.2,0,0,1,0,0,0.5,1,0,0,0,0,0,0,0,0,0,0,0,1,0,0,0,0,0,0,0,0\n"),
            std::string::npos)
      << csv;
}

// Issue 29: sync (fsync, fdatasync, fflush) and metadata (open, close, seek) time per file in
// their own columns of the text and the page, as in the CSV; records from before sync_s read
// with none.
TEST(FileView, SyncAndMetadataTimeHaveTheirOwnColumns) {
  json r = ranks();
  r[0]["files"][0]["syncs"] = 2;
  r[0]["files"][0]["sync_s"] = 0.235;
  r[0]["files"][0]["meta_s"] = 0.004;
  const RankFiles f = files_of(r, "rec.json");
  const auto sums = summarize_files(f.files);
  EXPECT_DOUBLE_EQ(sums[0].counts.sync_s, 0.235);
  EXPECT_EQ(sums[0].counts.syncs, 2u);
  EXPECT_DOUBLE_EQ(sums[0].counts.seconds(), 0.7 + 0.235 + 0.004);
  const Table t = file_table(sums, 10, 0);
  const auto col = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(t.header.begin(), t.header.end(), name) - t.header.begin());
  };
  // Nothing was read: no empty read columns; the write columns stay.
  EXPECT_EQ(col("read [s]"), t.header.size());
  EXPECT_EQ(col("reads"), t.header.size());
  EXPECT_LT(col("write [s]"), t.header.size());
  ASSERT_LT(col("sync [s]"), t.header.size());
  ASSERT_LT(col("meta [s]"), t.header.size());
  EXPECT_EQ(t.rows[0][col("sync [s]")], "0.235000");
  EXPECT_EQ(t.rows[0][col("meta [s]")], "0.004000");
  EXPECT_EQ(t.rows[0][col("per write")], "100 B");  // 300 B in 3 writes
  EXPECT_NE(files_text(f, Format::kTable).find("0.2350"), std::string::npos);  // the terminal's 4 decimals
  const json page = files_html_section(f);
  const json& header = page.at("tables").at(0).at("header");
  EXPECT_NE(std::find(header.begin(), header.end(), "sync [s]"), header.end()) << header;
  EXPECT_EQ(page.at("tables").at(0).at("rows")[0][col("sync [s]")], "0.235000");
  EXPECT_NE(files_csv(f).find("\n0,/s/shared,posix,1,0,1,1,2,0,100,0,0.2,0.004,0.235,"), std::string::npos)
      << files_csv(f);
}

TEST(FileView, MalformedEntriesNameFileRankAndField) {
  json r = ranks();
  r[1]["files"][1]["bytes_written"] = -4;
  try {
    files_of(r, "rec.json");
    FAIL() << "accepted a negative byte count";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("rec.json: ranks[rank 1].files[1].bytes_written"), std::string::npos) << e.what();
  }
  r = ranks();
  r[0]["files"][0]["write_sizes"] = json::array({1, 2});
  EXPECT_THROW(files_of(r, "rec.json"), InputError);
  r = ranks();
  r[0]["files"][0]["interface"] = "hdf5";
  EXPECT_THROW(files_of(r, "rec.json"), InputError);
  r = ranks();
  r[0]["files"] = "none";
  EXPECT_THROW(files_of(r, "rec.json"), InputError);
}

TEST(FileView, HtmlSectionHoldsTheMergedTable) {
  const json s = files_html_section(files_of(ranks(), "rec.json"));
  ASSERT_FALSE(s.is_null());
  EXPECT_EQ(s.at("title"), "Files by I/O time");
  const json& rows = s.at("tables").at(0).at("rows");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0][0], "/s/shared");
  EXPECT_EQ(rows[0][2], "2 shared");
  EXPECT_TRUE(files_html_section(files_of(json::array({{{"rank", 0}}}), "rec.json")).is_null());
}

}  // namespace
}  // namespace hpcsens::report
