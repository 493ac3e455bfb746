#include "sweep/knobs/knob_root.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>

#include "common/checked_path.h"
#include "common/safe_file.h"
#include "sweep/knobs/sysfs_io.h"

namespace hpcsens::sweep {
namespace {

constexpr int kMaxLinks = 40;  // the kernel's own limit

std::string joined(const std::string& shown, const std::string& name) {
  if (shown.empty()) return name;
  return shown.back() == '/' ? shown + name : shown + "/" + name;
}

// One walk from "/" (or the current directory) to the knob file's directory.
class Walk {
 public:
  explicit Walk(bool absolute) : shown_(absolute ? "/" : "") {
    fd_ = sysfs_calls().openat(AT_FDCWD, absolute ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  }
  ~Walk() { reset(-1); }
  Walk(const Walk&) = delete;
  Walk& operator=(const Walk&) = delete;
  int fd() const { return fd_; }
  const std::string& shown() const { return shown_; }
  void reset(int next, std::string shown = "") {
    if (fd_ >= 0) sysfs_calls().close(fd_);
    fd_ = next;
    shown_ = std::move(shown);
  }
  int links = 0;

 private:
  int fd_ = -1;
  std::string shown_;
};

int fail(std::string* why, int err, std::string text) {
  *why = std::move(text);
  errno = err;
  return -1;
}

// `name` in w is a symlink on the way: its target's components go first, when it is the kernel's.
int follow(Walk& w, const std::string& name, std::deque<std::string>& todo, std::string* why) {
  const std::string here = joined(w.shown(), name);
  struct stat lst {};
  if (::fstatat(w.fd(), name.c_str(), &lst, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISLNK(lst.st_mode))
    return fail(why, ENOTDIR, here + ": is not a directory");
  if (!kernel_tree(w.fd()) || lst.st_uid != 0)
    return fail(why, ELOOP, here + ": is a symlink in a knob tree that is not root's sysfs or resctrl; refusing "
                                   "to follow it (a test tree must hold plain directories)");
  if (++w.links > kMaxLinks) return fail(why, ELOOP, here + ": " + std::strerror(ELOOP));
  char target[4096];
  const ssize_t n = ::readlinkat(w.fd(), name.c_str(), target, sizeof target - 1);
  if (n <= 0) return fail(why, n < 0 ? errno : ENOENT, "cannot read symlink " + here);
  const std::string_view t(target, std::size_t(n));
  const auto more = safe_file::path_components(t);
  todo.insert(todo.begin(), more.begin(), more.end());
  if (t.front() == '/') {
    w.reset(sysfs_calls().openat(AT_FDCWD, "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC), "/");
    if (w.fd() < 0) return fail(why, errno, std::string("cannot open /: ") + std::strerror(errno));
  }
  return 0;
}

// Opens the next directory of the walk and holds it to the output-path owner rules.
int step(Walk& w, const std::string& name, std::deque<std::string>& todo, std::string* why) {
  const std::string here = joined(w.shown(), name);
  const int next = sysfs_calls().openat(w.fd(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (next < 0) {
    const int e = errno;
    if (e == ELOOP || e == ENOTDIR) return follow(w, name, todo, why);
    return fail(why, e, "cannot open directory " + here + ": " + std::strerror(e));
  }
  struct stat st {};
  std::string problem = ::fstat(next, &st) != 0 ? std::strerror(errno)
                                                : safe_file::dir_trust_problem(st.st_uid, st.st_mode, ::geteuid());
  w.reset(next, here);
  if (!problem.empty()) return fail(why, EACCES, here + ": " + problem + "; knob files are not used through it");
  return 0;
}

}  // namespace

bool kernel_tree(int dirfd) {
  struct statfs sfs {};
  struct stat st {};
  if (::fstatfs(dirfd, &sfs) != 0 || ::fstat(dirfd, &st) != 0) return false;
  const long type = long(sfs.f_type);
  return (type == kSysfsMagic || type == kResctrlMagic) && st.st_uid == 0;
}

int open_knob_file(const std::string& path, int flags, std::string* why) {
  std::deque<std::string> todo = safe_file::path_components(path);
  if (todo.empty()) return fail(why, EISDIR, "'" + path + "' names no file");
  Walk w(path.front() == '/');
  if (w.fd() < 0) return fail(why, errno, std::string("cannot open the start of ") + path + ": " + std::strerror(errno));
  while (todo.size() > 1) {
    const std::string name = todo.front();
    todo.pop_front();
    if (step(w, name, todo, why) != 0) return -1;
  }
  const std::string here = joined(w.shown(), todo.front());
  const int fd = sysfs_calls().openat(w.fd(), todo.front().c_str(), flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    return fail(why, e, e == ELOOP ? here + ": is a symlink; a knob file is never opened through one"
                                   : here + ": " + std::strerror(e));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    sysfs_calls().close(fd);
    return fail(why, EINVAL, here + ": is not a regular file");
  }
  return fd;
}

}  // namespace hpcsens::sweep
