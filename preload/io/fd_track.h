#pragma once
// Which file descriptors are regular files opened by the program (POSIX open/creat, or a stdio
// stream on a regular file), as fixed bitmaps: the I/O wrappers test a bit, nothing more.
// Whether a descriptor is file I/O is decided once, when it is opened (is_file_io).
//
// The bitmaps cover 2^20 descriptors, Linux's default fs.nr_open: no process can hold a higher one
// unless an administrator raised that sysctl. They are zero-initialised static storage, so only the
// pages holding a set bit become resident (a few KiB), whatever the range. A file opened at or
// above kMaxTrackedFd is counted as a drop (said once in the record): visible, never silent.
#include <atomic>
#include <cstdint>

#include "preload/account/accounting.h"
#include "preload/account/clock.h"
#include "preload/account/file_table.h"
#include "preload/account/timeline.h"

namespace hpcsens::preload {

inline constexpr int kMaxTrackedFd = 1 << 20;

class FdSet {
 public:
  // False when fd is beyond the bitmap (the caller counts the drop).
  bool add(int fd) noexcept {
    if (fd < 0) return true;
    if (fd >= kMaxTrackedFd) return false;
    bits_[fd / 64].fetch_or(1ull << (fd % 64), std::memory_order_relaxed);
    return true;
  }
  void remove(int fd) noexcept {
    if (fd >= 0 && fd < kMaxTrackedFd)
      bits_[fd / 64].fetch_and(~(1ull << (fd % 64)), std::memory_order_relaxed);
  }
  [[gnu::always_inline]] bool has(int fd) const noexcept {
    return fd >= 0 && fd < kMaxTrackedFd &&
           (bits_[fd / 64].load(std::memory_order_relaxed) >> (fd % 64)) & 1;
  }

 private:
  std::atomic<std::uint64_t> bits_[kMaxTrackedFd / 64]{};
};

// Descriptors of stdio streams on files (stdio_io.cpp). libstdc++'s filebuf opens with fopen64
// and then calls read/write/writev on the stream's descriptor: those calls are counted by the
// POSIX wrappers for these descriptors too (glibc's own stdio writes through its internal write,
// which is not interposed, so no byte is counted twice).
extern FdSet g_stream_fds;

// File I/O: a regular file outside the kernel's pseudo file systems. Character devices
// (/dev/null), pipes, sockets and /proc, /sys, cgroup, debug and trace files are not: reading
// /proc/self/statm is not I/O to storage. One fstat (and one fstatfs for a regular file).
bool is_file_io(int fd) noexcept;

// Times an opening call: `fn` opens, `fd_of` gives the descriptor of what it returned (-1 for a
// failure). The call is recorded as `id` only when that is file I/O (or the open failed);
// `file` tells the caller whether to track the descriptor. A file gets its entry in the file
// table under `path` (nullptr: the kernel's name of the descriptor) and `api`.
template <class F, class FdOf>
auto timed_open(int id, const char* path, FileApi api, F&& fn, FdOf&& fd_of, bool* file) {
  Guard guard;
  const bool counting = guard.counting();
  const std::uint64_t start = counting ? now_ticks() : 0;
  auto r = fn();
  const std::uint64_t elapsed = counting ? now_ticks() - start : 0;
  const int fd = fd_of(r);
  *file = fd >= 0 && is_file_io(fd);
  if (counting && (fd < 0 || *file)) guard.record(id, elapsed, 0), timeline_call(id, start, elapsed);
  if (*file) file_opened(fd, path, api, counting, start, elapsed);
  else file_forget_fd(fd);
  return r;
}

// Files whose I/O was not counted because their descriptor was >= kMaxTrackedFd.
extern std::atomic<std::uint64_t> g_untracked_files;
inline void count_untracked_file() noexcept {
  g_untracked_files.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace hpcsens::preload
