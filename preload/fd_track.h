#pragma once
// Which file descriptors are regular files opened by the program (POSIX open/creat, or a stdio
// stream on a regular file), as fixed bitmaps: the I/O wrappers test a bit, nothing more.
//
// The bitmaps cover 2^20 descriptors, Linux's default fs.nr_open: no process can hold a higher one
// unless an administrator raised that sysctl. They are zero-initialised static storage, so only the
// pages holding a set bit become resident (a few KiB), whatever the range. A file opened at or
// above kMaxTrackedFd is counted as a drop (said once in the record): visible, never silent.
#include <atomic>
#include <cstdint>

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

// Files whose I/O was not counted because their descriptor was >= kMaxTrackedFd.
extern std::atomic<std::uint64_t> g_untracked_files;
inline void count_untracked_file() noexcept {
  g_untracked_files.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace hpcsens::preload
