#include "preload/account/file_table.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstring>
#include <new>

namespace hpcsens::preload {

constinit FileEntry g_files[kFileEntries];
constinit FdFile g_fd_files[kFileFdSlots];

namespace {

constexpr auto kRelaxed = std::memory_order_relaxed;

constinit char g_pool[kFilePathPool]{};
std::atomic<std::uint32_t> g_pool_used{0};
std::atomic<int> g_claimed{0};
std::atomic<std::uint64_t> g_dropped{0};

struct MpiioSlot {
  std::atomic<const void*> handle{nullptr};
  std::atomic<std::uint16_t> entry{0};  // index + 1
};
constinit MpiioSlot g_mpiio[kMpiioHandles];

int used() noexcept { return std::min(g_claimed.load(std::memory_order_acquire), kFileEntries); }

// The entry of (path, api): an existing one, or a new one claimed now; -1 when full (a drop).
int claim_entry(const char* path, std::uint32_t len, FileApi api) noexcept {
  const int n = used();
  for (int i = 0; i < n; ++i) {
    const FileEntry& e = g_files[i];
    if (e.ready.load(std::memory_order_acquire) == 1 && e.api == api && e.path_len == len &&
        std::memcmp(g_pool + e.path_at, path, len) == 0)
      return i;
  }
  const int i = g_claimed.fetch_add(1, std::memory_order_acq_rel);
  if (i >= kFileEntries) return -1;
  const std::uint32_t at = g_pool_used.fetch_add(len, kRelaxed);
  FileEntry& e = g_files[i];
  if (at > kFilePathPool || len > kFilePathPool - at) {
    e.ready.store(2, std::memory_order_release);  // claimed, never usable: not a file
    return -1;
  }
  std::memcpy(g_pool + at, path, len);
  e.api = api;
  e.path_at = at;
  e.path_len = len;
  e.ready.store(1, std::memory_order_release);
  return i;
}

// Counts the open on entry `i` (when counted) and returns i + 1 for a descriptor or handle slot.
std::uint16_t note_open(int i, bool counted, std::uint64_t start, std::uint64_t ticks) noexcept {
  if (i < 0) {
    g_dropped.fetch_add(1, kRelaxed);
    return 0;
  }
  FileEntry& e = g_files[i];
  if (counted) {
    e.opens.fetch_add(1, kRelaxed);
    e.meta_ticks.fetch_add(ticks, kRelaxed);
    std::uint64_t none = 0;
    e.first_open_tick.compare_exchange_strong(none, start, kRelaxed);
    e.last_io_tick.store(start + ticks, kRelaxed);
  }
  return static_cast<std::uint16_t>(i + 1);
}

// An O_APPEND descriptor's writes go to the end of the file, not to position 0: its position
// starts at the file's size (a write's offset is then right until something else grows the file
// or the program seeks it; reads on such a descriptor are rare).
std::int64_t append_start(int fd) noexcept {
  const int flags = ::fcntl(fd, F_GETFL);
  struct stat st;
  if (flags < 0 || (flags & O_APPEND) == 0 || ::fstat(fd, &st) != 0) return 0;
  return static_cast<std::int64_t>(st.st_size);
}

}  // namespace

void file_pattern(FileEntry* e, FileOp op, std::int64_t offset, std::uint64_t bytes) noexcept {
  auto& end = op == FileOp::read ? e->read_end : e->write_end;
  const std::int64_t prev = end.exchange(offset + static_cast<std::int64_t>(bytes), kRelaxed);
  (offset == prev ? e->consecutive : offset > prev ? e->sequential : e->random).fetch_add(1, kRelaxed);
}

void file_opened(int fd, const char* path, FileApi api, bool counted, std::uint64_t start,
                 std::uint64_t ticks) noexcept {
  if (fd < 0 || fd >= kFileFdSlots) return;
  char name[PATH_MAX];
  std::uint32_t len = 0;
  if (path != nullptr && path[0] == '/') {
    len = static_cast<std::uint32_t>(std::strlen(path));
  } else {
    // Relative, openat with a directory, fopen, fdopen: the kernel's name of what was opened.
    char link[32];
    std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    const ssize_t n = ::readlink(link, name, sizeof name);
    if (n <= 0 || n >= static_cast<ssize_t>(sizeof name)) {
      g_dropped.fetch_add(1, kRelaxed);
      file_forget_fd(fd);
      return;
    }
    len = static_cast<std::uint32_t>(n);
    path = name;
  }
  FdFile& f = g_fd_files[fd];
  f.pos.store(append_start(fd), kRelaxed);
  f.posix.store(0, kRelaxed);
  f.entry.store(note_open(claim_entry(path, len, api), counted, start, ticks), std::memory_order_release);
}

void file_forget_fd(int fd) noexcept {
  // Only a slot that holds something is written: a close of a socket or pipe (most closes) must
  // not dirty a page of the slot array.
  if (fd >= 0 && fd < kFileFdSlots && g_fd_files[fd].entry.load(kRelaxed) != 0) {
    g_fd_files[fd].posix.store(0, kRelaxed);
    g_fd_files[fd].entry.store(0, std::memory_order_release);
  }
}

FileRef file_posix_entry(FdFile* f, const FileEntry* e) noexcept {
  const int i = claim_entry(g_pool + e->path_at, e->path_len, FileApi::posix);
  if (i < 0) {  // the table is full: one drop, and this descriptor's POSIX calls stay uncounted
    f->posix.store(kNoPosixEntry, std::memory_order_release);
    g_dropped.fetch_add(1, kRelaxed);
    return {};
  }
  f->posix.store(static_cast<std::uint16_t>(i + 1), std::memory_order_release);
  return {&g_files[i], f};
}

void file_dup(int from, int to) noexcept {
  if (to < 0 || to >= kFileFdSlots || to == from) return;
  const FileRef r = file_ref(from);
  g_fd_files[to].pos.store(r.fd ? r.fd->pos.load(kRelaxed) : 0, kRelaxed);
  g_fd_files[to].posix.store(r.fd ? r.fd->posix.load(kRelaxed) : 0, kRelaxed);
  g_fd_files[to].entry.store(r.fd ? r.fd->entry.load(kRelaxed) : 0, std::memory_order_release);
}

FileRef mpiio_ref(const void* handle) noexcept {
  if (handle == nullptr) return {};
  for (auto& s : g_mpiio) {
    if (s.handle.load(std::memory_order_acquire) != handle) continue;
    const unsigned i = s.entry.load(kRelaxed);
    return i == 0 ? FileRef{} : FileRef{&g_files[i - 1], nullptr};
  }
  return {};
}

void mpiio_opened(const void* handle, const char* name, std::uint64_t start, std::uint64_t ticks) noexcept {
  if (handle == nullptr || name == nullptr) return;
  char full[PATH_MAX];
  const char* path = name;
  // "ufs:data" and the like name a file system driver (ROMIO prefixes): kept as given.
  if (name[0] != '/' && std::strchr(name, ':') == nullptr && ::getcwd(full, sizeof full) != nullptr) {
    const std::size_t n = std::strlen(full);
    if (n + 1 + std::strlen(name) < sizeof full) {
      full[n] = '/';
      std::strcpy(full + n + 1, name);
      path = full;
    }
  }
  const std::uint16_t entry =
      note_open(claim_entry(path, static_cast<std::uint32_t>(std::strlen(path)), FileApi::mpiio), true, start, ticks);
  if (entry == 0) return;
  mpiio_forget(handle);  // a handle closed where nothing was counted, now reused by MPI
  for (auto& s : g_mpiio) {
    const void* none = nullptr;
    if (s.handle.load(kRelaxed) == nullptr && s.handle.compare_exchange_strong(none, handle, std::memory_order_acq_rel)) {
      s.entry.store(entry, std::memory_order_release);
      return;
    }
  }
  g_dropped.fetch_add(1, kRelaxed);  // more MPI files open at once than handle slots
}

void mpiio_opened_fortran(const void* handle, const char* name, std::size_t len, std::uint64_t start,
                          std::uint64_t ticks) noexcept {
  if (name == nullptr) return;
  while (len > 0 && name[len - 1] == ' ') --len;  // Fortran pads with blanks
  char copy[PATH_MAX];
  if (len >= sizeof copy) {
    g_dropped.fetch_add(1, kRelaxed);
    return;
  }
  std::memcpy(copy, name, len);
  copy[len] = '\0';
  mpiio_opened(handle, copy, start, ticks);
}

void mpiio_forget(const void* handle) noexcept {
  if (handle == nullptr) return;
  for (auto& s : g_mpiio) {
    if (s.handle.load(kRelaxed) != handle) continue;
    s.entry.store(0, kRelaxed);
    s.handle.store(nullptr, std::memory_order_release);
    return;
  }
}

std::uint64_t files_dropped() noexcept { return g_dropped.load(kRelaxed); }
int files_used() noexcept { return used(); }
const char* file_path(const FileEntry& e) noexcept { return g_pool + e.path_at; }

void reset_file_table() noexcept {
  for (auto& e : g_files) {
    e.~FileEntry();
    new (&e) FileEntry();
  }
  for (auto& s : g_mpiio) s.handle.store(nullptr), s.entry.store(0);
  for (int fd = 0; fd < 1024; ++fd) g_fd_files[fd].entry.store(0), g_fd_files[fd].posix.store(0), g_fd_files[fd].pos.store(0);
  g_pool_used.store(0);
  g_claimed.store(0);
  g_dropped.store(0);
}

}  // namespace hpcsens::preload
