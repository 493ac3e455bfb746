// The per-file table of the preload (file_table.h) and its record (file_report.h), without MPI:
// Darshan's size buckets, the access pattern, names of relative opens, drops when full, exact
// counts under concurrent threads, and the JSON the record carries.
#include "preload/account/file_table.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "preload/rank_record/file_report.h"

namespace hpcsens::preload {
namespace {

class FileTable : public ::testing::Test {
 protected:
  void SetUp() override {
    reset_file_table();
    char tmpl[] = "/tmp/hpcsens-file-table-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = std::filesystem::canonical(tmpl).string();
  }
  void TearDown() override {
    reset_file_table();
    std::filesystem::remove_all(dir_);
  }
  nlohmann::json record() const { return files_json(g_files, files_used(), 1e-9, 1000); }
  std::string dir_;
};

TEST(FileSizeBucket, DarshanBoundaries) {
  const std::pair<std::uint64_t, int> cases[] = {
      {0, 0}, {100, 0}, {101, 1}, {1024, 1}, {1025, 2}, {10240, 2}, {10241, 3}, {102400, 3}, {102401, 4},
      {1u << 20, 4}, {(1u << 20) + 1, 5}, {4u << 20, 5}, {10u << 20, 6}, {(10u << 20) + 1, 7}, {100u << 20, 7},
      {1u << 30, 8}, {(1ull << 30) + 1, 9}, {1ull << 40, 9}};
  for (const auto& [bytes, bucket] : cases) EXPECT_EQ(file_size_bucket(bytes), bucket) << bytes;
}

TEST_F(FileTable, RelativeOpenGetsTheKernelsAbsoluteName) {
  const int dirfd = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY);
  const int fd = ::openat(dirfd, "rel.dat", O_CREAT | O_WRONLY, 0600);
  ASSERT_GE(fd, 0);
  file_opened(fd, "rel.dat", FileApi::posix, true, 2000, 10);
  const FileRef ref = file_ref(fd);
  ASSERT_NE(ref.e, nullptr);
  EXPECT_EQ(std::string(file_path(*ref.e), ref.e->path_len), dir_ + "/rel.dat");
  file_opened(fd, "/given/as/is", FileApi::stdio, true, 2000, 10);
  EXPECT_EQ(std::string(file_path(*file_ref(fd).e), file_ref(fd).e->path_len), "/given/as/is");
  ::close(fd);
  ::close(dirfd);
}

TEST_F(FileTable, AccessPatternAtThePositionAndAtOffsets) {
  file_opened(3, "/f", FileApi::posix, true, 2000, 10);
  const FileRef f = file_ref(3);
  file_count(f, FileOp::write, kAtPosition, 3000, 5, 1000);  // 0: consecutive (end 0)
  file_count(f, FileOp::write, kAtPosition, 3100, 5, 50);    // 1000: consecutive
  file_count(f, FileOp::write, 5000, 3200, 5, 100);          // sequential
  file_count(f, FileOp::write, 10, 3300, 5, 100);            // random
  file_count(f, FileOp::write, 110, 3400, 5, 100);           // consecutive
  file_seeked(3, 0);
  file_count(f, FileOp::read, kAtPosition, 3500, 7, 200);  // reads compare with reads: consecutive
  file_count(f, FileOp::meta, kNoOffset, 3600, 3, 0);
  file_dup(3, 9);
  file_count(file_ref(9), FileOp::read, kAtPosition, 3700, 7, 10);  // the dup's position: 200
  file_forget_fd(9);
  EXPECT_EQ(file_ref(9).e, nullptr);
  const FileEntry& e = *f.e;
  EXPECT_EQ(e.writes.load(), 5u);
  EXPECT_EQ(e.reads.load(), 2u);
  EXPECT_EQ(e.bytes_written.load(), 1350u);
  EXPECT_EQ(e.bytes_read.load(), 210u);
  EXPECT_EQ(e.consecutive.load(), 5u);
  EXPECT_EQ(e.sequential.load(), 1u);
  EXPECT_EQ(e.random.load(), 1u);
  EXPECT_EQ(e.write_sizes[0].load(), 4u);
  EXPECT_EQ(e.write_sizes[1].load(), 1u);
  EXPECT_EQ(e.read_sizes[0].load(), 1u);
  EXPECT_EQ(e.read_sizes[1].load(), 1u);
  EXPECT_EQ(e.meta_ticks.load(), 10u + 3u);  // the open and the meta call
  EXPECT_EQ(e.last_io_tick.load(), 3707u);
  const auto j = record();
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0].at("path"), "/f");
  EXPECT_DOUBLE_EQ(j[0].at("write_s").get<double>(), 25 * 1e-9);
  EXPECT_DOUBLE_EQ(j[0].at("first_open_s").get<double>(), 1000e-9);
  EXPECT_DOUBLE_EQ(j[0].at("last_io_s").get<double>(), 2707e-9);
}

TEST_F(FileTable, AppendWritesStartAtTheEndOfTheFile) {
  const std::string path = dir_ + "/log";
  std::ofstream(path) << std::string(100, 'x');
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND);
  ASSERT_GE(fd, 0);
  file_opened(fd, path.c_str(), FileApi::posix, true, 10, 1);
  const FileRef f = file_ref(fd);
  file_count(f, FileOp::write, kAtPosition, 20, 1, 10);  // at 100, after the last write end (0)
  file_count(f, FileOp::write, kAtPosition, 30, 1, 10);  // at 110: consecutive
  ::close(fd);
  EXPECT_EQ(f.e->sequential.load(), 1u);
  EXPECT_EQ(f.e->consecutive.load(), 1u);
  EXPECT_EQ(f.e->write_end.load(), 120);
  // Without O_APPEND the position starts at 0.
  const int plain = ::open(path.c_str(), O_WRONLY);
  file_opened(plain, path.c_str(), FileApi::posix, true, 40, 1);
  EXPECT_EQ(file_ref(plain).fd->pos.load(), 0);
  ::close(plain);
}

TEST_F(FileTable, FullTableAndPoolCountDrops) {
  for (int i = 0; i < kFileEntries + 10; ++i) {
    const std::string p = "/many/" + std::to_string(i);
    file_opened(4, p.c_str(), FileApi::posix, true, 2000, 1);
  }
  EXPECT_EQ(files_dropped(), 10u);
  EXPECT_EQ(file_ref(4).e, nullptr);  // the last open found no room: its descriptor has no entry
  EXPECT_EQ(record().size(), static_cast<std::size_t>(kFileEntries));
  reset_file_table();
  // Names of 4002 (i < 10) and 4003 bytes: the 256 KiB pool holds 10 + 55 of them.
  const std::string huge(4000, 'p');
  for (int i = 0; i < 70; ++i) file_opened(5, ("/" + std::to_string(i) + huge).c_str(), FileApi::posix, true, 2000, 1);
  EXPECT_EQ(files_dropped(), 5u);
  EXPECT_EQ(record().size(), 65u);
}

TEST_F(FileTable, SamePathAndInterfaceIsOneEntryUnlessNewOrOtherInterface) {
  file_opened(3, "/same", FileApi::posix, true, 2000, 1);
  file_opened(4, "/same", FileApi::posix, true, 2000, 1);
  file_opened(5, "/same", FileApi::stdio, true, 2000, 1);
  file_opened(6, "/caf\xe9", FileApi::posix, false, 2000, 1);  // opened before init: not counted
  EXPECT_EQ(file_ref(3).e, file_ref(4).e);
  EXPECT_NE(file_ref(3).e, file_ref(5).e);
  EXPECT_EQ(file_ref(3).e->opens.load(), 2u);
  auto j = record();
  EXPECT_EQ(j.size(), 2u) << j.dump();  // no counted I/O on /caf\xe9 yet
  file_count(file_ref(6), FileOp::write, kAtPosition, 3000, 1, 1);
  j = record();
  ASSERT_EQ(j.size(), 3u);
  // Most time first: /same (posix, 2 ticks), then by key: "/caf\xe9" before "/same" (stdio).
  EXPECT_EQ(j[0].at("path"), "/same");
  EXPECT_EQ(j[1].at("path"), "/caf\\xe9");  // lossless: the byte 0xE9 as \xe9
  EXPECT_FALSE(j[1].contains("first_open_s"));
  EXPECT_EQ(j[2].at("interface"), "stdio");
}

TEST_F(FileTable, ConcurrentThreadsCountExactly) {
  file_opened(3, "/shared", FileApi::posix, true, 2000, 1);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([] {
      for (int i = 0; i < 20000; ++i) file_count(file_ref(3), FileOp::write, i, 3000, 2, 7);
    });
  for (auto& t : threads) t.join();
  const FileEntry& e = *file_ref(3).e;
  EXPECT_EQ(e.writes.load(), 80000u);
  EXPECT_EQ(e.bytes_written.load(), 560000u);
  EXPECT_EQ(e.write_ticks.load(), 160000u);
  EXPECT_EQ(e.consecutive.load() + e.sequential.load() + e.random.load(), 80000u);
}

TEST_F(FileTable, MpiioNamesMadeAbsoluteAndHandlesForgotten) {
  const std::string cwd = std::filesystem::current_path().string();
  int a = 0, b = 0, c = 0;
  mpiio_opened(&a, "out.dat", 2000, 5);
  mpiio_opened(&b, "/abs.dat", 2000, 5);
  mpiio_opened(&c, "ufs:x.dat", 2000, 5);
  ASSERT_NE(mpiio_ref(&a).e, nullptr);
  EXPECT_EQ(std::string(file_path(*mpiio_ref(&a).e), mpiio_ref(&a).e->path_len), cwd + "/out.dat");
  EXPECT_EQ(std::string(file_path(*mpiio_ref(&b).e), mpiio_ref(&b).e->path_len), "/abs.dat");
  EXPECT_EQ(std::string(file_path(*mpiio_ref(&c).e), mpiio_ref(&c).e->path_len), "ufs:x.dat");
  EXPECT_EQ(mpiio_ref(&a).e->api, FileApi::mpiio);
  mpiio_forget(&a);
  EXPECT_EQ(mpiio_ref(&a).e, nullptr);
  EXPECT_NE(mpiio_ref(&b).e, nullptr);
}

}  // namespace
}  // namespace hpcsens::preload
