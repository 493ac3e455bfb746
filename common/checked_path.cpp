#include "common/checked_path.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>

#include "common/safe_file.h"

namespace hpcsens::safe_file {
namespace {

// Symlinks followed on the way, at most (the kernel's own limit).
constexpr int kMaxLinks = 40;

std::string joined(const std::string& shown, const std::string& name) {
  if (shown.empty()) return name;
  return shown.back() == '/' ? shown + name : shown + "/" + name;
}

std::string with_errno(const std::string& what, const std::string& path, int e) {
  return what + " " + path + ": " + std::strerror(e);
}

// "" when fd is a directory we may use.
std::string check_dir(int fd, const std::string& shown) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return with_errno("cannot stat directory", shown, errno);
  if (!S_ISDIR(st.st_mode)) return shown + ": is not a directory";
  const std::string problem = dir_trust_problem(st.st_uid, st.st_mode, ::geteuid());
  return problem.empty() ? "" : shown + ": " + problem;
}

// State of one walk: the directory reached so far and its name for messages.
struct Walk {
  int fd = -1;
  std::string shown;
  int links = 0;
  ~Walk() {
    if (fd >= 0) ::close(fd);
  }
  void move_to(int next, std::string name) {
    if (fd >= 0) ::close(fd);
    fd = next;
    shown = std::move(name);
  }
};

// `name` in w.fd is a symlink on the way: queue its target's components (from "/" when absolute).
std::string follow_link(Walk& w, const std::string& name, const struct stat& lst,
                        std::deque<std::string>& todo) {
  const std::string here = joined(w.shown, name);
  if (lst.st_uid != ::geteuid() && lst.st_uid != 0)
    return here + ": is a symlink owned by another user (uid " + std::to_string(lst.st_uid) +
           "); refusing to follow it";
  if (++w.links > kMaxLinks) return here + ": " + std::strerror(ELOOP);
  char target[4096];
  const ssize_t n = ::readlinkat(w.fd, name.c_str(), target, sizeof target - 1);
  if (n <= 0) return with_errno("cannot read symlink", here, n < 0 ? errno : ENOENT);
  const std::string_view t(target, static_cast<std::size_t>(n));
  auto more = path_components(t);
  todo.insert(todo.begin(), more.begin(), more.end());
  if (t.front() == '/') {
    const int root = ::open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (root < 0) return with_errno("cannot open directory", "/", errno);
    w.move_to(root, "/");
    return check_dir(w.fd, "/");
  }
  return "";
}

// Opens `name` below w.fd as a directory, making it first when asked and missing.
int open_below(const Walk& w, const std::string& name, bool create) {
  constexpr int kFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
  int next = ::openat(w.fd, name.c_str(), kFlags);
  if (next < 0 && errno == ENOENT && create) {
    if (::mkdirat(w.fd, name.c_str(), 0755) != 0 && errno != EEXIST) return -1;
    next = ::openat(w.fd, name.c_str(), kFlags);  // whoever made it, it is checked next
  }
  return next;
}

}  // namespace

std::deque<std::string> path_components(std::string_view path) {
  std::deque<std::string> out;
  std::size_t i = 0;
  while (i < path.size()) {
    const std::size_t slash = path.find('/', i);
    const std::size_t end = slash == std::string_view::npos ? path.size() : slash;
    const std::string_view c = path.substr(i, end - i);
    if (!c.empty() && c != ".") out.emplace_back(c);
    i = end + 1;
  }
  return out;
}

int open_checked_dir(const std::string& path, bool create, std::string* why, bool* untrusted) {
  bool refused_here = false;
  if (untrusted == nullptr) untrusted = &refused_here;
  *untrusted = false;
  if (path.empty()) {
    *why = "empty directory name";
    return -1;
  }
  const bool absolute = path.front() == '/';
  Walk w;
  w.fd = ::open(absolute ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (w.fd < 0) {
    *why = with_errno("cannot open directory", absolute ? "/" : ".", errno);
    return -1;
  }
  w.shown = absolute ? "/" : "";
  // The current directory is the user's own choice of start; "/" is checked like the rest.
  if (absolute && !(*why = check_dir(w.fd, "/")).empty()) {
    *untrusted = true;
    return -1;
  }
  std::deque<std::string> todo = path_components(path);
  while (!todo.empty()) {
    const std::string name = todo.front();
    todo.pop_front();
    const std::string here = joined(w.shown, name);
    const int next = open_below(w, name, create);
    if (next < 0) {
      const int e = errno;
      struct stat lst {};
      const bool link = (e == ELOOP || e == ENOTDIR) &&
                        ::fstatat(w.fd, name.c_str(), &lst, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(lst.st_mode);
      *untrusted = link;
      if (link && todo.empty()) *why = here + ": is a symlink; refusing to follow it";
      else if (link) *why = follow_link(w, name, lst, todo);
      else if (e == ENOTDIR) *why = here + ": is not a directory";
      else *why = with_errno(create && e != ENOENT ? "cannot create directory" : "cannot open directory", here, e);
      if (!why->empty()) return -1;
      continue;
    }
    w.move_to(next, here);
    if (*why = check_dir(w.fd, here); !why->empty()) {
      *untrusted = true;
      return -1;
    }
  }
  why->clear();
  const int fd = w.fd;
  w.fd = -1;
  return fd;
}

std::string code_owner_problem(uid_t owner, mode_t mode, uid_t euid) {
  if (owner != euid && owner != 0)
    return "is owned by another user (uid " + std::to_string(owner) + "); code is loaded only from root's or yours";
  if (mode & (S_IWGRP | S_IWOTH)) return "is writable by group or others; code is loaded only from where nobody else can write";
  return "";
}

std::string code_file_problem(const std::string& file) {
  const auto slash = file.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : file.substr(0, slash));
  const std::string name = slash == std::string::npos ? file : file.substr(slash + 1);
  std::string why;
  const int fd = open_checked_dir(dir, false, &why);
  if (fd < 0) return why;
  struct stat dst {}, fst {};
  std::string problem;
  if (::fstat(fd, &dst) != 0) problem = with_errno("cannot stat directory", dir, errno);
  else if (auto p = code_owner_problem(dst.st_uid, dst.st_mode, ::geteuid()); !p.empty()) problem = dir + ": " + p;
  else if (::fstatat(fd, name.c_str(), &fst, AT_SYMLINK_NOFOLLOW) != 0) problem = with_errno("cannot stat", file, errno);
  else if (!S_ISREG(fst.st_mode)) problem = file + ": is not a regular file (a symlink is not followed)";
  else if (auto q = code_owner_problem(fst.st_uid, fst.st_mode, ::geteuid()); !q.empty()) problem = file + ": " + q;
  ::close(fd);
  return problem;
}

std::string random_hex(std::size_t bytes) {
  std::string raw(bytes, '\0');
  std::size_t got = 0;
  while (got < bytes) {
    const ssize_t n = ::getrandom(raw.data() + got, bytes - got, GRND_NONBLOCK);
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  if (got < bytes) {  // no entropy yet (early boot): unpredictable enough to avoid collisions
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    unsigned long long x = static_cast<unsigned long long>(ts.tv_nsec) * 6364136223846793005ull ^
                           static_cast<unsigned long long>(::getpid()) << 32;
    for (std::size_t i = got; i < bytes; ++i, x = x * 6364136223846793005ull + 1442695040888963407ull)
      raw[i] = static_cast<char>(x >> 56);
  }
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : raw) {
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out;
}

}  // namespace hpcsens::safe_file
