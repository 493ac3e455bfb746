#include "common/safe_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <cstdio>
#include <ctime>

#include "common/checked_path.h"
#include "common/errors.h"

namespace hpcsens::safe_file {
namespace {

std::string failed(const std::string& what, const std::string& path) {
  return what + " " + path + ": " + std::strerror(errno);
}

// " (owned by uid N: planted by another user?)" for a file that is not ours, else "".
std::string owner_note(const struct stat& st) {
  if (st.st_uid == ::geteuid()) return "";
  return " (owned by uid " + std::to_string(st.st_uid) + ": planted by another user? remove it)";
}

std::string temp_name(std::string_view name) {
  static std::atomic<unsigned> counter{0};
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return "." + std::string(name) + ".tmp." + std::to_string(::getpid()) + "." +
         std::to_string(counter.fetch_add(1)) + "." + std::to_string(ts.tv_nsec);
}

}  // namespace

Dir& Dir::operator=(Dir&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    path_ = std::move(o.path_);
    o.fd_ = -1;
  }
  return *this;
}

Dir::~Dir() {
  if (fd_ >= 0) ::close(fd_);
}

std::string Dir::child(std::string_view name) const {
  return (path_.empty() || path_.back() == '/') ? path_ + std::string(name)
                                                 : path_ + "/" + std::string(name);
}

std::string dir_trust_problem(uid_t owner, mode_t mode, uid_t euid) {
  if (owner != euid && owner != 0)
    return "is owned by another user (uid " + std::to_string(owner) +
           "); hpcsens writes only into directories owned by you or root";
  if ((mode & (S_IWGRP | S_IWOTH)) && !(mode & S_ISVTX))
    return "is writable by group or others without the sticky bit; use a private directory";
  return "";
}

std::string open_dir(const std::string& path, bool create, Dir* out) {
  std::string why;
  const int fd = open_checked_dir(path, create, &why);
  if (fd < 0) return why;
  *out = Dir(fd, path);
  return "";
}

std::string write_all(int fd, std::string_view data, const std::string& what) {
  const char* p = data.data();
  std::size_t left = data.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return failed("cannot write", what);
    if (n == 0) {
      errno = EIO;
      return failed("cannot write", what);
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  return "";
}

std::string AtomicFile::create(const Dir& dir, std::string_view name, mode_t mode) {
  if (!dir.is_open()) return "internal: directory not open for " + std::string(name);
  dir_ = &dir;
  name_ = name;
  for (int attempt = 0; attempt < 8 && fd_ < 0; ++attempt) {
    tmp_ = temp_name(name);
    fd_ = ::openat(dir.fd(), tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                   mode);
    if (fd_ < 0 && errno != EEXIST) break;
  }
  if (fd_ < 0) return failed("cannot create", dir.child(tmp_));
  return "";
}

std::string AtomicFile::append(std::string_view data) {
  if (fd_ < 0) return "internal: " + std::string(name_) + " is not open";
  return write_all(fd_, data, dir_->child(tmp_));
}

std::string AtomicFile::commit() {
  if (fd_ < 0) return "internal: " + std::string(name_) + " is not open";
  std::string err;
  if (::fsync(fd_) != 0) err = failed("cannot flush (fsync)", dir_->child(tmp_));
  if (::close(fd_) != 0 && err.empty()) err = failed("cannot close", dir_->child(tmp_));
  fd_ = -1;
  if (err.empty() && ::renameat(dir_->fd(), tmp_.c_str(), dir_->fd(), name_.c_str()) != 0)
    err = failed("cannot rename " + dir_->child(tmp_) + " to", dir_->child(name_));
  if (!err.empty()) ::unlinkat(dir_->fd(), tmp_.c_str(), 0);
  return err;
}

namespace {

// Moves `from` to `to` in one directory unless `to` exists; errno EEXIST when it does.
int move_no_replace(int dir, const char* from, const char* to) {
  if (::renameat2(dir, from, dir, to, RENAME_NOREPLACE) == 0) return 0;
  if (errno != EINVAL && errno != ENOSYS) return -1;
  // NFS and some others lack RENAME_NOREPLACE; link(2) never replaces either.
  if (::linkat(dir, from, dir, to, 0) != 0) return -1;
  ::unlinkat(dir, from, 0);
  return 0;
}

}  // namespace

std::string AtomicFile::commit_unique(std::string_view stem, std::string_view suffix, std::string* written) {
  if (fd_ < 0) return "internal: " + std::string(name_) + " is not open";
  std::string err;
  if (::fsync(fd_) != 0) err = failed("cannot flush (fsync)", dir_->child(tmp_));
  if (::close(fd_) != 0 && err.empty()) err = failed("cannot close", dir_->child(tmp_));
  fd_ = -1;
  for (int attempt = 0; err.empty() && attempt < 16; ++attempt) {
    const std::string name = std::string(stem) + "." + random_hex(8) + std::string(suffix);
    if (move_no_replace(dir_->fd(), tmp_.c_str(), name.c_str()) == 0) {
      *written = name;
      return "";
    }
    if (errno != EEXIST) err = failed("cannot rename " + dir_->child(tmp_) + " to", dir_->child(name));
  }
  if (err.empty()) err = dir_->child(std::string(stem)) + ".*" + std::string(suffix) + ": no free name";
  ::unlinkat(dir_->fd(), tmp_.c_str(), 0);
  return err;
}

void AtomicFile::abandon() noexcept {
  if (fd_ < 0) return;
  ::close(fd_);
  fd_ = -1;
  ::unlinkat(dir_->fd(), tmp_.c_str(), 0);
}

std::string write_atomic(const Dir& dir, std::string_view name, std::string_view content,
                         mode_t mode) {
  AtomicFile f;
  if (auto err = f.create(dir, name, mode); !err.empty()) return err;
  if (auto err = f.append(content); !err.empty()) return err;  // the destructor removes it
  return f.commit();
}

std::string write_unique(const Dir& dir, std::string_view stem, std::string_view suffix,
                         std::string_view content, std::string* written, mode_t mode) {
  AtomicFile f;
  if (auto err = f.create(dir, std::string(stem) + std::string(suffix), mode); !err.empty()) return err;
  if (auto err = f.append(content); !err.empty()) return err;
  return f.commit_unique(stem, suffix, written);
}

std::string write_file_atomic(const std::string& path, std::string_view content,
                              bool create_dir, mode_t mode) {
  const auto slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (name.empty()) return path + ": no file name";
  Dir d;
  if (auto err = open_dir(dir, create_dir, &d); !err.empty()) return err;
  return write_atomic(d, name, content, mode);
}

std::string file_type_problem(mode_t mode) {
  if (S_ISREG(mode)) return "";
  if (S_ISDIR(mode)) return "is a directory, not a file";
  if (S_ISFIFO(mode)) return "is a FIFO (named pipe), not a regular file";
  if (S_ISSOCK(mode)) return "is a socket, not a regular file";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "is not a regular file (a device)";
  if (S_ISLNK(mode)) return "is a symlink; refusing to follow it";
  return "is not a regular file";
}

namespace {

// Why dir/name could not be opened: its type when it is there and not a regular file (a FIFO
// opened for writing without a reader fails with ENXIO, which says nothing useful), else errno.
std::string open_failure(const Dir& dir, const std::string& name, int err) {
  struct stat st {};
  if (::fstatat(dir.fd(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode))
    return dir.child(name) + ": " + file_type_problem(st.st_mode) + owner_note(st);
  errno = err;
  return failed("cannot open", dir.child(name));
}

}  // namespace

std::string open_private(const Dir& dir, std::string_view name, int flags, mode_t mode, int* fd_out) {
  const std::string n(name);
  // O_NONBLOCK: a FIFO planted under our name must not block the open (for writing it blocks until
  // a reader comes, for reading until a writer does); the type is checked on the descriptor below.
  const int fd = ::openat(dir.fd(), n.c_str(), flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode);
  if (fd < 0) return open_failure(dir, n, errno);
  struct stat st {};
  std::string err;
  if (::fstat(fd, &st) != 0) err = failed("cannot stat", dir.child(name));
  else if (!S_ISREG(st.st_mode)) err = dir.child(name) + ": " + file_type_problem(st.st_mode) + owner_note(st);
  else if (st.st_uid != ::geteuid()) err = dir.child(name) + ": is owned by another user (uid " + std::to_string(st.st_uid) + "); refusing it";
  else if (st.st_nlink != 1) err = dir.child(name) + ": has several hard links; refusing";
  else if (::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0) err = failed("cannot use", dir.child(name));
  if (!err.empty()) {
    ::close(fd);
    return err;
  }
  *fd_out = fd;
  return "";
}

std::string open_append(const Dir& dir, std::string_view name, int* fd_out) {
  return open_private(dir, name, O_WRONLY | O_APPEND | O_CREAT, 0644, fd_out);
}

namespace {

// `path` opened for reading without blocking (a FIFO would block the open until a writer comes)
// and checked on the descriptor: a regular file (and with `own`, no symlink at the end and ours).
// *st is its status. Throws InputError.
int open_input(const std::string& path, bool own, struct stat* st) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | (own ? O_NOFOLLOW : 0));
  if (fd < 0 && own && errno == ELOOP) throw InputError(path, "is a symlink; refusing to read it");
  if (fd < 0) throw InputError(path, std::string("cannot read: ") + std::strerror(errno));
  std::string problem;
  if (::fstat(fd, st) != 0) problem = std::string("cannot read: ") + std::strerror(errno);
  else if (!S_ISREG(st->st_mode)) problem = file_type_problem(st->st_mode);
  else if (own && st->st_uid != ::geteuid())
    problem = "is owned by another user (uid " + std::to_string(st->st_uid) + "); not ours";
  if (!problem.empty()) {
    ::close(fd);
    throw InputError(path, problem);
  }
  return fd;
}

// Reads fd to its end, at most max_bytes (more: InputError naming path); closes fd.
std::string read_to_end(int fd, const std::string& path, std::size_t size_hint, std::size_t max_bytes, bool cut) {
  std::string text;
  // The whole file in one allocation, with room for the 64 bytes of padding simdjson reads past
  // the end (a 1 GiB record grown by doubling would briefly need twice its size).
  text.reserve(std::min(size_hint, max_bytes) + 64);
  char buf[65536];
  for (;;) {
    const std::size_t want = cut ? std::min(sizeof buf, max_bytes - text.size()) : sizeof buf;
    if (want == 0) break;
    const ssize_t n = ::read(fd, buf, want);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int e = errno;
      ::close(fd);
      throw InputError(path, std::string("cannot read: ") + std::strerror(e));
    }
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > max_bytes) {  // grew while being read
      ::close(fd);
      throw InputError(path, "is larger than " + std::to_string(max_bytes) + " bytes");
    }
  }
  ::close(fd);
  return text;
}

std::string read_file(const std::string& path, std::size_t max_bytes, bool own) {
  struct stat st {};
  const int fd = open_input(path, own, &st);
  if (static_cast<std::size_t>(st.st_size) > max_bytes) {
    ::close(fd);
    throw InputError(path, "is larger than " + std::to_string(max_bytes) + " bytes");
  }
  return read_to_end(fd, path, static_cast<std::size_t>(st.st_size), max_bytes, false);
}

}  // namespace

std::string read_input_file(const std::string& path, std::size_t max_bytes) {
  return read_file(path, max_bytes, false);
}

std::string read_own_file(const std::string& path, std::size_t max_bytes) {
  return read_file(path, max_bytes, true);
}

std::string read_input_head(const std::string& path, std::size_t n) {
  struct stat st {};
  const int fd = open_input(path, false, &st);
  return read_to_end(fd, path, n, n, true);
}

}  // namespace hpcsens::safe_file
