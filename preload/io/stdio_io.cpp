// C stdio wrappers: streams on files (fopen/fdopen onto file I/O, fd_track.h; not terminals,
// pipes or sockets) are counted as their own I/O class, bytes and time. glibc's stdio writes
// through its internal write, not the interposed one, so a stream's bytes are counted once, here.
// The call ids come from mpi_calls.tbl (category stdio_*); the wrappers are written by hand
// because stdio's signatures (variadic, FILE*) do not fit the MPI generator.
//
// Bytes: fwrite/fread count size x items transferred, the printf family the characters written,
// fputs/fgets the string length, fputc one byte; fscanf the bytes it consumed: the change of the
// stream's read position, computed from the FILE's own fields (read_pos below) without a system
// call or the stream lock.
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <cstdarg>
#include <utility>

#include "preload/io/fd_track.h"
#include "preload/interpose/wrapper_support.h"

using namespace hpcsens::preload;

namespace {

bool counted(FILE* f) { return f != nullptr && g_stream_fds.has(fileno_unlocked(f)); }

using Seeko64Fn = int (*)(FILE*, off64_t, int);
constinit RealSymbol<Seeko64Fn> real_seek_at_open{"fseeko64", true};

// glibc keeps in FILE::_offset the file offset of the read buffer's end once it knows it (a seek
// tells it; reads and writes keep it current), else -1. The read position is then that minus
// what is still unread in the buffer. -1: unknown, or the buffer is not plain read data
// (unflushed writes, an ungetc backup area).
constexpr int kInBackup = 0x100;  // glibc's _IO_IN_BACKUP flag
long long read_pos(FILE* f) {
  if (f == nullptr || f->_offset < 0 || f->_IO_write_ptr > f->_IO_write_base ||
      (f->_flags & kInBackup) != 0)
    return -1;
  return f->_offset - (f->_IO_read_end - f->_IO_read_ptr);
}
// glibc forgets the offset when a read meets the end of the file (another handle may move it):
// there the position is the file's size less what is still unread, at one fstat per stream end.
constexpr int kEofSeen = 0x10;  // glibc's _IO_EOF_SEEN flag
long long pos_at_eof(FILE* f) {
  struct stat st;
  if ((f->_flags & (kEofSeen | kInBackup)) != kEofSeen || f->_IO_write_ptr > f->_IO_write_base ||
      fstat(fileno_unlocked(f), &st) != 0)
    return -1;
  return static_cast<long long>(st.st_size) - (f->_IO_read_end - f->_IO_read_ptr);
}
// fscanf's bytes: how far the read position moved (0 where it is unknown on either side).
auto consumed(FILE* f) {
  return [f, before = read_pos(f)](int) -> std::uint64_t {
    long long after = read_pos(f);
    if (after < 0 && before >= 0) after = pos_at_eof(f);
    return before >= 0 && after >= before ? static_cast<std::uint64_t>(after - before) : 0;
  };
}

FILE* opened(FILE* f, bool file) {
  if (f == nullptr) return f;
  const int fd = fileno_unlocked(f);
  g_stream_fds.remove(fd);
  if (!file) return f;
  if (!g_stream_fds.add(fd)) count_untracked_file();
  // A seek to where the fresh stream already is: glibc then knows its offset (read_pos), at one
  // lseek here rather than two per fscanf. Skipped for write-only streams (fscanf cannot read).
  constexpr int kNoReads = 4;  // glibc's _IO_NO_READS flag
  if ((f->_flags & kNoReads) == 0) real_seek_at_open.get()(f, 0, SEEK_CUR);
  return f;
}

std::uint64_t nonneg(long long n) { return n > 0 ? static_cast<std::uint64_t>(n) : 0; }

// Times `fn` as call `id` when counting and `f` is a counted file, and counts it on the stream's
// file as `op` (file_table.h); `bytes_of` turns fn's result into bytes.
template <class F, class B>
auto timed_ref(int id, bool ok, FileRef file, FileOp op, F&& fn, B&& bytes_of) {
  Guard guard;
  if (!guard.counting() || !ok) return fn();
  const std::uint64_t start = now_ticks();
  auto r = fn();
  const std::uint64_t elapsed = now_ticks() - start;
  const std::uint64_t bytes = bytes_of(r);
  guard.record(id, elapsed, bytes);
  timeline_call(id, start, elapsed);
  file_count(file, op, kAtPosition, start, elapsed, bytes);
  return r;
}
template <class F, class B>
auto timed(int id, FILE* f, FileOp op, F&& fn, B&& bytes_of) {
  const bool ok = counted(f);
  return timed_ref(id, ok, ok ? file_ref(fileno_unlocked(f)) : FileRef{}, op, std::forward<F>(fn),
                   std::forward<B>(bytes_of));
}
// After a seek the stream's position is where the next access starts.
int seeked(FILE* f, int rc) {
  if (rc == 0 && counted(f)) file_seeked(fileno_unlocked(f), ftello64(f));
  return rc;
}
constexpr auto kNoBytes = [](auto) -> std::uint64_t { return 0; };
constexpr auto kStreamFd = [](FILE* f) { return f != nullptr ? fileno_unlocked(f) : -1; };

using FopenFn = FILE* (*)(const char*, const char*);
using FdopenFn = FILE* (*)(int, const char*);
using TmpfileFn = FILE* (*)();
using FileFn = int (*)(FILE*);
using RwFn = size_t (*)(void*, size_t, size_t, FILE*);
using WFn = size_t (*)(const void*, size_t, size_t, FILE*);
using VprintfFn = int (*)(FILE*, const char*, va_list);
using VprintfChkFn = int (*)(FILE*, int, const char*, va_list);
using PutsFn = int (*)(const char*, FILE*);
using PutcFn = int (*)(int, FILE*);
using GetsFn = char* (*)(char*, int, FILE*);
using GetsChkFn = char* (*)(char*, size_t, int, FILE*);
using ReadChkFn = size_t (*)(void*, size_t, size_t, size_t, FILE*);
using SeekFn = int (*)(FILE*, long, int);
using SeekoFn = int (*)(FILE*, off_t, int);

#define REAL(type, name) constinit RealSymbol<type> real_##name{#name, true};
REAL(FopenFn, fopen)
REAL(FopenFn, fopen64)
REAL(FdopenFn, fdopen)
REAL(TmpfileFn, tmpfile)
REAL(TmpfileFn, tmpfile64)
REAL(FileFn, fclose)
REAL(FileFn, fflush)
REAL(FileFn, fflush_unlocked)
REAL(RwFn, fread)
REAL(RwFn, fread_unlocked)
REAL(WFn, fwrite)
REAL(WFn, fwrite_unlocked)
REAL(VprintfFn, vfprintf)
REAL(VprintfChkFn, __vfprintf_chk)
using VscanfFn = int (*)(FILE*, const char*, va_list);
constinit RealSymbol<VscanfFn> real_vfscanf{"vfscanf", true};
constinit RealSymbol<VscanfFn> real___isoc99_vfscanf{"__isoc99_vfscanf", true};
REAL(PutsFn, fputs)
REAL(PutsFn, fputs_unlocked)
REAL(PutcFn, fputc)
REAL(PutcFn, fputc_unlocked)
REAL(PutcFn, putc)
REAL(GetsFn, fgets)
REAL(GetsFn, fgets_unlocked)
REAL(GetsChkFn, __fgets_chk)
REAL(GetsChkFn, __fgets_unlocked_chk)
REAL(ReadChkFn, __fread_chk)
REAL(ReadChkFn, __fread_unlocked_chk)
REAL(SeekFn, fseek)
REAL(SeekoFn, fseeko)
REAL(Seeko64Fn, fseeko64)
#undef REAL

auto items_bytes(size_t size) {
  return [size](size_t items) { return static_cast<std::uint64_t>(items) * size; };
}
constexpr auto kPrinted = [](int n) { return nonneg(n); };
auto string_bytes(const char* s) {
  return [s](int rc) -> std::uint64_t { return rc >= 0 ? strlen(s) : 0; };
}
constexpr auto kOneByte = [](int rc) -> std::uint64_t { return rc != EOF ? 1 : 0; };
constexpr auto kLineBytes = [](char* line) -> std::uint64_t { return line ? strlen(line) : 0; };

}  // namespace

extern "C" {

HPCSENS_EXPORT FILE* fopen(const char* path, const char* mode) {
  bool file = false;
  FILE* f = timed_open(call::fopen, path, FileApi::stdio, [&] { return real_fopen.get()(path, mode); }, kStreamFd, &file);
  return opened(f, file);
}
HPCSENS_EXPORT FILE* fopen64(const char* path, const char* mode) {
  bool file = false;
  FILE* f =
      timed_open(call::fopen64, path, FileApi::stdio, [&] { return real_fopen64.get()(path, mode); }, kStreamFd, &file);
  return opened(f, file);
}
HPCSENS_EXPORT FILE* fdopen(int fd, const char* mode) {
  bool file = false;
  FILE* f = timed_open(call::fdopen, nullptr, FileApi::stdio, [&] { return real_fdopen.get()(fd, mode); }, kStreamFd, &file);
  return opened(f, file);
}
// An unnamed temporary file: the kernel's name of it ("/tmp/#123 (deleted)" and the like).
HPCSENS_EXPORT FILE* tmpfile() {
  bool file = false;
  FILE* f = timed_open(call::tmpfile, nullptr, FileApi::stdio, [&] { return real_tmpfile.get()(); }, kStreamFd, &file);
  return opened(f, file);
}
HPCSENS_EXPORT FILE* tmpfile64() {
  bool file = false;
  FILE* f =
      timed_open(call::tmpfile64, nullptr, FileApi::stdio, [&] { return real_tmpfile64.get()(); }, kStreamFd, &file);
  return opened(f, file);
}
HPCSENS_EXPORT int fclose(FILE* f) {
  const bool ok = counted(f);
  const FileRef ref = ok ? file_ref(fileno_unlocked(f)) : FileRef{};
  if (f != nullptr) g_stream_fds.remove(fileno_unlocked(f)), file_forget_fd(fileno_unlocked(f));
  return timed_ref(call::fclose, ok, ref, FileOp::meta, [&] { return real_fclose.get()(f); }, kNoBytes);
}
HPCSENS_EXPORT int fflush(FILE* f) {
  return timed(call::fflush, f, FileOp::sync, [&] { return real_fflush.get()(f); }, kNoBytes);
}
HPCSENS_EXPORT int fflush_unlocked(FILE* f) {
  return timed(call::fflush, f, FileOp::sync, [&] { return real_fflush_unlocked.get()(f); }, kNoBytes);
}
HPCSENS_EXPORT size_t fread(void* p, size_t size, size_t n, FILE* f) {
  return timed(call::fread, f, FileOp::read, [&] { return real_fread.get()(p, size, n, f); },
               items_bytes(size));
}
HPCSENS_EXPORT size_t fread_unlocked(void* p, size_t size, size_t n, FILE* f) {
  return timed(call::fread, f, FileOp::read, [&] { return real_fread_unlocked.get()(p, size, n, f); },
               items_bytes(size));
}
HPCSENS_EXPORT size_t __fread_chk(void* p, size_t len, size_t size, size_t n, FILE* f) {
  return timed(call::fread, f, FileOp::read, [&] { return real___fread_chk.get()(p, len, size, n, f); },
               items_bytes(size));
}
HPCSENS_EXPORT size_t __fread_unlocked_chk(void* p, size_t len, size_t size, size_t n, FILE* f) {
  return timed(call::fread, f, FileOp::read,
               [&] { return real___fread_unlocked_chk.get()(p, len, size, n, f); },
               items_bytes(size));
}
HPCSENS_EXPORT size_t fwrite(const void* p, size_t size, size_t n, FILE* f) {
  return timed(call::fwrite, f, FileOp::write, [&] { return real_fwrite.get()(p, size, n, f); },
               items_bytes(size));
}
HPCSENS_EXPORT size_t fwrite_unlocked(const void* p, size_t size, size_t n, FILE* f) {
  return timed(call::fwrite, f, FileOp::write,
               [&] { return real_fwrite_unlocked.get()(p, size, n, f); }, items_bytes(size));
}
HPCSENS_EXPORT int vfprintf(FILE* f, const char* fmt, va_list ap) {
  return timed(call::fprintf, f, FileOp::write, [&] { return real_vfprintf.get()(f, fmt, ap); },
               kPrinted);
}
HPCSENS_EXPORT int fprintf(FILE* f, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const int n = timed(call::fprintf, f, FileOp::write, [&] { return real_vfprintf.get()(f, fmt, ap); },
                      kPrinted);
  va_end(ap);
  return n;
}
HPCSENS_EXPORT int __vfprintf_chk(FILE* f, int flag, const char* fmt, va_list ap) {
  return timed(call::fprintf, f, FileOp::write,
               [&] { return real___vfprintf_chk.get()(f, flag, fmt, ap); }, kPrinted);
}
HPCSENS_EXPORT int __fprintf_chk(FILE* f, int flag, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const int n = timed(call::fprintf, f, FileOp::write,
                      [&] { return real___vfprintf_chk.get()(f, flag, fmt, ap); }, kPrinted);
  va_end(ap);
  return n;
}
// glibc's headers rename fscanf/vfscanf to their __isoc99_ versions (asm labels), so each of the
// four entry points is given its symbol name explicitly.
HPCSENS_EXPORT int hpcsens_vfscanf(FILE* f, const char* fmt, va_list ap) __asm__("vfscanf");
HPCSENS_EXPORT int hpcsens_fscanf(FILE* f, const char* fmt, ...) __asm__("fscanf");
HPCSENS_EXPORT int hpcsens_isoc99_vfscanf(FILE* f, const char* fmt, va_list ap)
    __asm__("__isoc99_vfscanf");
HPCSENS_EXPORT int hpcsens_isoc99_fscanf(FILE* f, const char* fmt, ...) __asm__("__isoc99_fscanf");

HPCSENS_EXPORT int hpcsens_vfscanf(FILE* f, const char* fmt, va_list ap) {
  return timed(call::fscanf, f, FileOp::read, [&] { return real_vfscanf.get()(f, fmt, ap); }, consumed(f));
}
HPCSENS_EXPORT int hpcsens_fscanf(FILE* f, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const int n = timed(call::fscanf, f, FileOp::read, [&] { return real_vfscanf.get()(f, fmt, ap); },
                      consumed(f));
  va_end(ap);
  return n;
}
HPCSENS_EXPORT int hpcsens_isoc99_vfscanf(FILE* f, const char* fmt, va_list ap) {
  return timed(call::fscanf, f, FileOp::read,
               [&] { return real___isoc99_vfscanf.get()(f, fmt, ap); }, consumed(f));
}
HPCSENS_EXPORT int hpcsens_isoc99_fscanf(FILE* f, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const int n = timed(call::fscanf, f, FileOp::read,
                      [&] { return real___isoc99_vfscanf.get()(f, fmt, ap); }, consumed(f));
  va_end(ap);
  return n;
}
HPCSENS_EXPORT int fputs(const char* s, FILE* f) {
  return timed(call::fputs, f, FileOp::write, [&] { return real_fputs.get()(s, f); }, string_bytes(s));
}
HPCSENS_EXPORT int fputs_unlocked(const char* s, FILE* f) {
  return timed(call::fputs, f, FileOp::write, [&] { return real_fputs_unlocked.get()(s, f); },
               string_bytes(s));
}
HPCSENS_EXPORT int fputc(int c, FILE* f) {
  return timed(call::fputc, f, FileOp::write, [&] { return real_fputc.get()(c, f); }, kOneByte);
}
HPCSENS_EXPORT int fputc_unlocked(int c, FILE* f) {
  return timed(call::fputc, f, FileOp::write, [&] { return real_fputc_unlocked.get()(c, f); }, kOneByte);
}
HPCSENS_EXPORT int putc(int c, FILE* f) {
  return timed(call::fputc, f, FileOp::write, [&] { return real_putc.get()(c, f); }, kOneByte);
}
HPCSENS_EXPORT char* fgets(char* s, int n, FILE* f) {
  return timed(call::fgets, f, FileOp::read, [&] { return real_fgets.get()(s, n, f); }, kLineBytes);
}
HPCSENS_EXPORT char* fgets_unlocked(char* s, int n, FILE* f) {
  return timed(call::fgets, f, FileOp::read, [&] { return real_fgets_unlocked.get()(s, n, f); },
               kLineBytes);
}
HPCSENS_EXPORT char* __fgets_chk(char* s, size_t len, int n, FILE* f) {
  return timed(call::fgets, f, FileOp::read, [&] { return real___fgets_chk.get()(s, len, n, f); },
               kLineBytes);
}
HPCSENS_EXPORT char* __fgets_unlocked_chk(char* s, size_t len, int n, FILE* f) {
  return timed(call::fgets, f, FileOp::read,
               [&] { return real___fgets_unlocked_chk.get()(s, len, n, f); }, kLineBytes);
}
HPCSENS_EXPORT int fseek(FILE* f, long off, int whence) {
  return seeked(f, timed(call::fseek, f, FileOp::meta, [&] { return real_fseek.get()(f, off, whence); },
                            kNoBytes));
}
HPCSENS_EXPORT int fseeko(FILE* f, off_t off, int whence) {
  return seeked(f, timed(call::fseek, f, FileOp::meta, [&] { return real_fseeko.get()(f, off, whence); },
                            kNoBytes));
}
HPCSENS_EXPORT int fseeko64(FILE* f, off64_t off, int whence) {
  return seeked(f, timed(call::fseek, f, FileOp::meta, [&] { return real_fseeko64.get()(f, off, whence); },
                            kNoBytes));
}

}  // extern "C"

namespace hpcsens::preload {
FdSet g_stream_fds;
}  // namespace hpcsens::preload
