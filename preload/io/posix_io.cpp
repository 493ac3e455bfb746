// POSIX I/O wrappers. Only file descriptors of files (fd_track.h: is_file_io) that came from
// open()/creat(), or that a stdio stream on a file holds (C++ iostreams), are counted, so sockets
// and pipes (MPI's own progress threads, the launcher's stdio forwarding), /dev/null and /proc
// are not "I/O time".
// Calls are counted only between our init and finalize barriers, outside any MPI call (MPI-IO's
// internal writes belong to the MPI-IO call); before and after, the wrappers only forward.
// libc's stdio (fwrite, fprintf) calls its internal write directly and is not seen here: stdio
// streams have their own wrappers (stdio_io.cpp), so nothing is counted twice.
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include <atomic>
#include <cstdarg>
#include <utility>

#include "preload/io/fd_track.h"
#include "preload/interpose/wrapper_support.h"

using namespace hpcsens::preload;

namespace {

FdSet g_file_fds;

void track(int fd) {
  if (!g_file_fds.add(fd)) count_untracked_file();
}
void untrack(int fd) { g_file_fds.remove(fd); }
bool tracked(int fd) { return g_file_fds.has(fd) || g_stream_fds.has(fd); }

// File systems whose files are the kernel's state, not storage.
bool pseudo_fs(long type) {
  switch (type) {
    case PROC_SUPER_MAGIC: case SYSFS_MAGIC: case CGROUP_SUPER_MAGIC: case CGROUP2_SUPER_MAGIC:
    case DEBUGFS_MAGIC: case TRACEFS_MAGIC: case SECURITYFS_MAGIC: case BPF_FS_MAGIC:
      return true;
    default:
      return false;
  }
}

std::uint64_t positive(ssize_t n) { return n > 0 ? static_cast<std::uint64_t>(n) : 0; }

bool needs_mode(int flags) {
#ifdef O_TMPFILE
  if ((flags & O_TMPFILE) == O_TMPFILE) return true;
#endif
  return (flags & O_CREAT) != 0;
}

// Times `fn` as call `id` when counting and `ok`, and counts it on `file` as `op` at `at`
// (file_table.h); returns fn's result.
template <class F>
auto timed_ref(int id, bool ok, FileRef file, FileOp op, std::int64_t at, F&& fn) {
  Guard guard;
  if (!guard.counting() || !ok) return fn();
  const std::uint64_t start = now_ticks();
  auto r = fn();
  const std::uint64_t elapsed = now_ticks() - start;
  const std::uint64_t bytes = op == FileOp::meta || op == FileOp::sync ? 0 : positive(r);
  guard.record(id, elapsed, bytes);
  timeline_call(id, start, elapsed);
  file_count(file, op, at, start, elapsed, bytes);
  return r;
}
// A descriptor that is no file (MPI's sockets and pipes: most reads and writes of a run) costs
// the bitmap test only; its file slot is not read. A POSIX call on a stdio stream's descriptor
// counts on the file's posix entry: the class of a call is the interface called (fsync is posix).
template <class F>
auto timed(int id, int fd, FileOp op, std::int64_t at, F&& fn) {
  const bool file = tracked(fd);
  return timed_ref(id, file, file ? file_ref_posix(fd) : FileRef{}, op, at, std::forward<F>(fn));
}

using ReadFn = ssize_t (*)(int, void*, size_t);
using WriteFn = ssize_t (*)(int, const void*, size_t);
using PreadFn = ssize_t (*)(int, void*, size_t, off_t);
using PwriteFn = ssize_t (*)(int, const void*, size_t, off_t);
using Pread64Fn = ssize_t (*)(int, void*, size_t, off64_t);
using Pwrite64Fn = ssize_t (*)(int, const void*, size_t, off64_t);
using IovFn = ssize_t (*)(int, const struct iovec*, int);
using OpenFn = int (*)(const char*, int, ...);
using OpenatFn = int (*)(int, const char*, int, ...);
using CreatFn = int (*)(const char*, mode_t);
using FdFn = int (*)(int);
using MkstempFn = int (*)(char*);
using MkostempFn = int (*)(char*, int);                  // also mkstemps (template, suffix length)
using MkostempsFn = int (*)(char*, int, int);

constinit RealSymbol<ReadFn> real_read{"read", true};
constinit RealSymbol<WriteFn> real_write{"write", true};
constinit RealSymbol<PreadFn> real_pread{"pread", true};
constinit RealSymbol<PwriteFn> real_pwrite{"pwrite", true};
constinit RealSymbol<Pread64Fn> real_pread64{"pread64", true};
constinit RealSymbol<Pwrite64Fn> real_pwrite64{"pwrite64", true};
constinit RealSymbol<IovFn> real_readv{"readv", true};
constinit RealSymbol<IovFn> real_writev{"writev", true};
constinit RealSymbol<OpenFn> real_open{"open", true};
constinit RealSymbol<OpenFn> real_open64{"open64", true};
constinit RealSymbol<OpenatFn> real_openat{"openat", true};
constinit RealSymbol<CreatFn> real_creat{"creat", true};
constinit RealSymbol<FdFn> real_close{"close", true};
// Temporary files (gfortran's scratch units, tmp buffers of libraries): the kernel's name of the
// file made is recorded, as for any open.
constinit RealSymbol<MkstempFn> real_mkstemp{"mkstemp", true};
constinit RealSymbol<MkstempFn> real_mkstemp64{"mkstemp64", true};
constinit RealSymbol<MkostempFn> real_mkostemp{"mkostemp", true};
constinit RealSymbol<MkostempFn> real_mkostemp64{"mkostemp64", true};
constinit RealSymbol<MkostempFn> real_mkstemps{"mkstemps", true};
constinit RealSymbol<MkostempFn> real_mkstemps64{"mkstemps64", true};
constinit RealSymbol<MkostempsFn> real_mkostemps{"mkostemps", true};
constinit RealSymbol<MkostempsFn> real_mkostemps64{"mkostemps64", true};
constinit RealSymbol<FdFn> real_fsync{"fsync", true};
constinit RealSymbol<FdFn> real_fdatasync{"fdatasync", true};
constinit RealSymbol<FdFn> real_dup{"dup", true};
constinit RealSymbol<int (*)(int, int)> real_dup2{"dup2", true};
constinit RealSymbol<int (*)(int, int, int)> real_dup3{"dup3", true};
constinit RealSymbol<off_t (*)(int, off_t, int)> real_lseek{"lseek", true};
constinit RealSymbol<off64_t (*)(int, off64_t, int)> real_lseek64{"lseek64", true};

int opened(int fd, bool file) {
  untrack(fd);  // a reused number: what it was before does not matter
  if (file) track(fd);
  return fd;
}
constexpr auto kFd = [](int fd) { return fd; };

// The mode argument of an opening call, present only when the flags create a file (reading it
// otherwise would read past what the caller passed).
mode_t mode_of(int flags, va_list ap) { return needs_mode(flags) ? static_cast<mode_t>(va_arg(ap, int)) : 0; }

// Times the opening call `open_fn` (open, open64, openat, creat) as `id` and tracks what it opened.
template <class F>
int open_file(int id, const char* path, F&& open_fn) {
  bool file = false;
  const int fd = timed_open(id, path, FileApi::posix, std::forward<F>(open_fn), kFd, &file);
  return fd >= 0 ? opened(fd, file) : fd;
}

// A descriptor duplicated from a file is that file too (dup2/dup3 first close whatever `to`
// was); at or above kMaxTrackedFd it is a counted drop like any file opened there.
int duplicated(int from, int to) {
  if (to >= 0 && to != from) {
    untrack(to);
    if (tracked(from)) track(to);
    file_dup(from, to);
  }
  return to;
}

}  // namespace

extern "C" {

HPCSENS_EXPORT ssize_t read(int fd, void* buf, size_t n) {
  return timed(call::read, fd, FileOp::read, kAtPosition, [&] { return real_read.get()(fd, buf, n); });
}
HPCSENS_EXPORT ssize_t write(int fd, const void* buf, size_t n) {
  return timed(call::write, fd, FileOp::write, kAtPosition, [&] { return real_write.get()(fd, buf, n); });
}
HPCSENS_EXPORT ssize_t pread(int fd, void* buf, size_t n, off_t off) {
  return timed(call::pread, fd, FileOp::read, off, [&] { return real_pread.get()(fd, buf, n, off); });
}
HPCSENS_EXPORT ssize_t pwrite(int fd, const void* buf, size_t n, off_t off) {
  return timed(call::pwrite, fd, FileOp::write, off,
               [&] { return real_pwrite.get()(fd, buf, n, off); });
}
HPCSENS_EXPORT ssize_t pread64(int fd, void* buf, size_t n, off64_t off) {
  return timed(call::pread64, fd, FileOp::read, off,
               [&] { return real_pread64.get()(fd, buf, n, off); });
}
HPCSENS_EXPORT ssize_t pwrite64(int fd, const void* buf, size_t n, off64_t off) {
  return timed(call::pwrite64, fd, FileOp::write, off,
               [&] { return real_pwrite64.get()(fd, buf, n, off); });
}
HPCSENS_EXPORT ssize_t readv(int fd, const struct iovec* iov, int cnt) {
  return timed(call::readv, fd, FileOp::read, kAtPosition,
               [&] { return real_readv.get()(fd, iov, cnt); });
}
HPCSENS_EXPORT ssize_t writev(int fd, const struct iovec* iov, int cnt) {
  return timed(call::writev, fd, FileOp::write, kAtPosition,
               [&] { return real_writev.get()(fd, iov, cnt); });
}

HPCSENS_EXPORT int open(const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = mode_of(flags, ap);
  va_end(ap);
  return open_file(call::open, path, [&] { return real_open.get()(path, flags, mode); });
}
HPCSENS_EXPORT int open64(const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = mode_of(flags, ap);
  va_end(ap);
  return open_file(call::open64, path, [&] { return real_open64.get()(path, flags, mode); });
}
HPCSENS_EXPORT int openat(int dirfd, const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = mode_of(flags, ap);
  va_end(ap);
  return open_file(call::openat, path, [&] { return real_openat.get()(dirfd, path, flags, mode); });
}
HPCSENS_EXPORT int creat(const char* path, mode_t mode) {
  return open_file(call::creat, path, [&] { return real_creat.get()(path, mode); });
}
HPCSENS_EXPORT int mkstemp(char* tmpl) {
  return open_file(call::mkstemp, tmpl, [&] { return real_mkstemp.get()(tmpl); });
}
HPCSENS_EXPORT int mkstemp64(char* tmpl) {
  return open_file(call::mkstemp64, tmpl, [&] { return real_mkstemp64.get()(tmpl); });
}
HPCSENS_EXPORT int mkostemp(char* tmpl, int flags) {
  return open_file(call::mkostemp, tmpl, [&] { return real_mkostemp.get()(tmpl, flags); });
}
HPCSENS_EXPORT int mkostemp64(char* tmpl, int flags) {
  return open_file(call::mkostemp64, tmpl, [&] { return real_mkostemp64.get()(tmpl, flags); });
}
HPCSENS_EXPORT int mkstemps(char* tmpl, int suffix) {
  return open_file(call::mkstemps, tmpl, [&] { return real_mkstemps.get()(tmpl, suffix); });
}
HPCSENS_EXPORT int mkstemps64(char* tmpl, int suffix) {
  return open_file(call::mkstemps64, tmpl, [&] { return real_mkstemps64.get()(tmpl, suffix); });
}
HPCSENS_EXPORT int mkostemps(char* tmpl, int suffix, int flags) {
  return open_file(call::mkostemps, tmpl, [&] { return real_mkostemps.get()(tmpl, suffix, flags); });
}
HPCSENS_EXPORT int mkostemps64(char* tmpl, int suffix, int flags) {
  return open_file(call::mkostemps64, tmpl, [&] { return real_mkostemps64.get()(tmpl, suffix, flags); });
}
HPCSENS_EXPORT int close(int fd) {
  const bool file = tracked(fd);
  const FileRef ref = file ? file_ref_posix(fd) : FileRef{};
  untrack(fd);
  file_forget_fd(fd);
  return timed_ref(call::close, file, ref, FileOp::meta, kNoOffset, [&] { return real_close.get()(fd); });
}
HPCSENS_EXPORT int dup(int fd) { return duplicated(fd, real_dup.get()(fd)); }
HPCSENS_EXPORT int dup2(int fd, int to) { return duplicated(fd, real_dup2.get()(fd, to)); }
HPCSENS_EXPORT int dup3(int fd, int to, int flags) {
  return duplicated(fd, real_dup3.get()(fd, to, flags));
}
// Seeks only move the descriptor's position for the access pattern (file_table.h): no call is
// counted, so I/O time and the per-call table are what they were without the file table.
HPCSENS_EXPORT off_t lseek(int fd, off_t off, int whence) {
  const off_t r = real_lseek.get()(fd, off, whence);
  if (tracked(fd)) file_seeked(fd, r);
  return r;
}
HPCSENS_EXPORT off64_t lseek64(int fd, off64_t off, int whence) {
  const off64_t r = real_lseek64.get()(fd, off, whence);
  if (tracked(fd)) file_seeked(fd, r);
  return r;
}
HPCSENS_EXPORT int fsync(int fd) {
  return timed(call::fsync, fd, FileOp::sync, kNoOffset, [&] { return real_fsync.get()(fd); });
}
HPCSENS_EXPORT int fdatasync(int fd) {
  return timed(call::fdatasync, fd, FileOp::sync, kNoOffset,
               [&] { return real_fdatasync.get()(fd); });
}

}  // extern "C"

namespace hpcsens::preload {
std::atomic<std::uint64_t> g_untracked_files{0};

bool is_file_io(int fd) noexcept {
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return false;
  struct statfs fs;
  return fstatfs(fd, &fs) != 0 || !pseudo_fs(static_cast<long>(fs.f_type));
}
}  // namespace hpcsens::preload
