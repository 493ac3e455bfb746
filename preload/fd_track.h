#pragma once
// Which file descriptors are regular files opened by the program (POSIX open/creat, or a stdio
// stream on a regular file), as fixed bitmaps: the I/O wrappers test a bit, nothing more.
//
// Descriptors at or above kMaxTrackedFd cannot be tracked; a file opened there is counted as a
// drop (said once in the record), so the loss is visible instead of silent.
#include <atomic>
#include <cstdint>

namespace hpcsens::preload {

inline constexpr int kMaxTrackedFd = 1 << 16;

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
