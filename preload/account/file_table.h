#pragma once
// Per-file I/O accounting, Darshan-style (issue 20): a fixed table of files keyed by (path,
// interface), counted by the I/O wrappers (preload/io/) and read once at finalize
// (rank_record/file_report.h). It lives with the rank's accounting rather than in io/ because the
// record room must read it and io/ sits above that room.
//
// Storage is static only: kFileEntries entries, their paths in one kFilePathPool-byte pool, and
// one small slot per descriptor (sparse like FdSet: only touched pages become resident). A file
// that finds the table or the pool full is a counted drop (files_dropped in the record).
//
// Entries are claimed with one atomic increment and published with a release flag: no lock, so a
// signal handler or another thread can never wait on one. Two threads opening the same new path
// at once may claim two entries; finalize merges them by key.
//
// Hot path (file_count): a descriptor-indexed array load plus relaxed atomic adds on the entry
// (several threads may do I/O on one file, so the adds are atomic: about 10 locked adds, ~50-100
// ns uncontended on x86, beside a system call of a microsecond or more; bench/ prints it).
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace hpcsens::preload {

enum class FileApi : std::uint8_t { posix, stdio, mpiio };
// The record's name of an interface ("interface" of a file entry).
inline const char* file_api_name(FileApi a) noexcept {
  return a == FileApi::stdio ? "stdio" : a == FileApi::mpiio ? "mpiio" : "posix";
}
// sync: fsync, fdatasync, fflush, MPI_File_sync (data pushed towards storage, apart from meta:
// opens, closes, seeks and MPI-IO's other calls).
enum class FileOp : std::uint8_t { read, write, meta, sync };

inline constexpr int kFileEntries = 512;
inline constexpr std::uint32_t kFilePathPool = 256u << 10;
// Darshan's access-size buckets: [0,100], (100,1K], (1K,10K], (10K,100K], (100K,1M], (1M,4M],
// (4M,10M], (10M,100M], (100M,1G], above 1G (decimal K, binary M and G as Darshan has them).
inline constexpr int kFileSizeBuckets = 10;
inline constexpr int kFileFdSlots = 1 << 20;  // Linux's default fs.nr_open, as FdSet

// Offset arguments of file_count.
inline constexpr std::int64_t kAtPosition = -1;  // at the descriptor's position, which advances
inline constexpr std::int64_t kNoOffset = -2;     // unknown (MPI-IO): no access pattern counted

inline int file_size_bucket(std::uint64_t bytes) noexcept {
  constexpr std::uint64_t kUpper[kFileSizeBuckets - 1] = {
      100, 1024, 10240, 102400, 1u << 20, 4u << 20, 10u << 20, 100u << 20, 1u << 30};
  int b = 0;
  while (b < kFileSizeBuckets - 1 && bytes > kUpper[b]) ++b;
  return b;
}

struct FileEntry {
  std::atomic<std::uint8_t> ready{0};  // 1 once path and api are written (release)
  FileApi api = FileApi::posix;
  std::uint32_t path_at = 0, path_len = 0;  // in the path pool
  std::atomic<std::uint64_t> opens{0}, reads{0}, writes{0}, metas{0}, syncs{0};
  std::atomic<std::uint64_t> bytes_read{0}, bytes_written{0};
  std::atomic<std::uint64_t> read_ticks{0}, write_ticks{0}, meta_ticks{0}, sync_ticks{0};  // opens in meta
  std::atomic<std::uint64_t> read_sizes[kFileSizeBuckets]{}, write_sizes[kFileSizeBuckets]{};
  std::atomic<std::uint64_t> consecutive{0}, sequential{0}, random{0};
  // End offsets of the last read and the last write (Darshan compares like with like).
  std::atomic<std::int64_t> read_end{0}, write_end{0};
  std::atomic<std::uint64_t> first_open_tick{0}, last_io_tick{0};  // 0: none counted
};

// What one descriptor refers to: entry index + 1 (0: no entry) and its position. A call is
// counted under the interface the program called (docs/record-format.md, "files"): a POSIX call
// on a stdio stream's descriptor (fsync(fileno(f)); libstdc++'s read/write for C++ streams) goes
// to the file's (path, posix) entry, `posix` (index + 1, claimed on first use).
struct FdFile {
  std::atomic<std::uint16_t> entry{0};
  std::atomic<std::uint16_t> posix{0};
  std::atomic<std::int64_t> pos{0};
};

struct FileRef {
  FileEntry* e = nullptr;  // null: not in the table (not a file, or dropped)
  FdFile* fd = nullptr;    // null: no descriptor (MPI-IO)
};

extern FileEntry g_files[kFileEntries];
extern FdFile g_fd_files[kFileFdSlots];

[[gnu::always_inline]] inline FileRef file_ref(int fd) noexcept {
  if (fd < 0 || fd >= kFileFdSlots) return {};
  FdFile* f = &g_fd_files[fd];
  const unsigned i = f->entry.load(std::memory_order_acquire);
  return i == 0 ? FileRef{} : FileRef{&g_files[i - 1], f};
}

void file_pattern(FileEntry* e, FileOp op, std::int64_t offset, std::uint64_t bytes) noexcept;

inline constexpr std::uint16_t kNoPosixEntry = 0xffff;  // FdFile::posix when the table was full
// The (path, posix) entry of a descriptor whose entry is another interface's (claimed once).
FileRef file_posix_entry(FdFile* f, const FileEntry* e) noexcept;
// The descriptor's file for a POSIX call: its own entry when opened through POSIX, else its
// (path, posix) entry.
[[gnu::always_inline]] inline FileRef file_ref_posix(int fd) noexcept {
  const FileRef r = file_ref(fd);
  if (r.e == nullptr || r.e->api == FileApi::posix) return r;
  const unsigned i = r.fd->posix.load(std::memory_order_acquire);
  if (i == kNoPosixEntry) return {};
  return i != 0 ? FileRef{&g_files[i - 1], r.fd} : file_posix_entry(r.fd, r.e);
}

// One counted call on `ref`'s file: `start` and `ticks` as the call's timing, `bytes` moved,
// `at` the offset (or kAtPosition / kNoOffset).
[[gnu::always_inline]] inline void file_count(FileRef ref, FileOp op, std::int64_t at, std::uint64_t start,
                                              std::uint64_t ticks, std::uint64_t bytes) noexcept {
  FileEntry* e = ref.e;
  if (e == nullptr) return;
  constexpr auto r = std::memory_order_relaxed;
  e->last_io_tick.store(start + ticks, r);
  if (op == FileOp::meta) {
    e->metas.fetch_add(1, r), e->meta_ticks.fetch_add(ticks, r);
    return;
  }
  if (op == FileOp::sync) {
    e->syncs.fetch_add(1, r), e->sync_ticks.fetch_add(ticks, r);
    return;
  }
  const bool rd = op == FileOp::read;
  (rd ? e->reads : e->writes).fetch_add(1, r);
  (rd ? e->bytes_read : e->bytes_written).fetch_add(bytes, r);
  (rd ? e->read_ticks : e->write_ticks).fetch_add(ticks, r);
  (rd ? e->read_sizes : e->write_sizes)[file_size_bucket(bytes)].fetch_add(1, r);
  if (at == kAtPosition && ref.fd != nullptr) {
    at = ref.fd->pos.load(r);
    ref.fd->pos.store(at + static_cast<std::int64_t>(bytes), r);
  }
  if (at >= 0) file_pattern(e, op, at, bytes);
}

// `fd` now refers to `path` (nullptr: ask the kernel for the descriptor's name) through `api`,
// at position 0. When `counted`, the open is counted too: `start`, `ticks` as the call's timing.
void file_opened(int fd, const char* path, FileApi api, bool counted, std::uint64_t start,
                 std::uint64_t ticks) noexcept;
void file_forget_fd(int fd) noexcept;
void file_dup(int from, int to) noexcept;
inline void file_seeked(int fd, std::int64_t pos) noexcept {
  if (fd >= 0 && fd < kFileFdSlots && pos >= 0) g_fd_files[fd].pos.store(pos, std::memory_order_relaxed);
}

// MPI-IO: handles (MPI_File, a pointer in Open MPI and MPICH) mapped to entries.
inline constexpr int kMpiioHandles = 64;
FileRef mpiio_ref(const void* handle) noexcept;
// `name` as given to MPI_File_open (made absolute with the working directory when relative).
void mpiio_opened(const void* handle, const char* name, std::uint64_t start, std::uint64_t ticks) noexcept;
void mpiio_forget(const void* handle) noexcept;
// The same from Fortran: `name` is `len` characters, blank-padded, not NUL-terminated.
void mpiio_opened_fortran(const void* handle, const char* name, std::size_t len, std::uint64_t start,
                          std::uint64_t ticks) noexcept;

// Files not in the table: it or the path pool was full.
std::uint64_t files_dropped() noexcept;
// Entries claimed so far (some may not be ready yet).
int files_used() noexcept;
const char* file_path(const FileEntry& e) noexcept;  // not NUL-terminated: path_len bytes
// Forget everything (tests).
void reset_file_table() noexcept;

}  // namespace hpcsens::preload
