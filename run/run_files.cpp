#include "run/run_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

namespace hpcsens::run {
namespace {

constexpr std::size_t kRandomDigits = 16;

bool is_hex(std::string_view s) {
  return s.size() == kRandomDigits &&
         std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// `name` without `prefix` and `suffix`, or false when it has not both.
bool middle_of(std::string_view name, std::string_view prefix, std::string_view suffix, std::string_view* mid) {
  if (name.size() < prefix.size() + suffix.size() || !name.starts_with(prefix) || !name.ends_with(suffix))
    return false;
  *mid = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  return true;
}

bool ours(int dir_fd, const char* name, struct stat* st) {
  return ::fstatat(dir_fd, name, st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st->st_mode) &&
         st->st_uid == ::geteuid() && st->st_nlink == 1;
}

// Calls f(name, stat) for every entry of dir that is ours and of the kind.
template <class F>
void each_run_file(const safe_file::Dir& dir, const std::string& run_id, RunFile kind, F f) {
  const int fd = ::openat(dir.fd(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  DIR* d = ::fdopendir(fd);
  if (d == nullptr) {
    ::close(fd);
    return;
  }
  while (const dirent* e = ::readdir(d)) {
    struct stat st {};
    if (is_run_file(e->d_name, run_id, kind) && ours(dir.fd(), e->d_name, &st)) f(std::string(e->d_name), st);
  }
  ::closedir(d);
}

}  // namespace

bool is_run_file(std::string_view name, std::string_view run_id, RunFile kind) {
  std::string_view mid;
  const std::string prefix = std::string(run_id) + (kind == RunFile::kPartial ? ".rank" : ".");
  switch (kind) {
    case RunFile::kRecord:
      return middle_of(name, prefix, ".json", &mid) && is_hex(mid);
    case RunFile::kNote:
      return middle_of(name, prefix, ".write-error", &mid) && is_hex(mid);
    case RunFile::kPartial: {
      if (!middle_of(name, prefix, ".partial.json", &mid)) return false;
      const auto dot = mid.find('.');
      const std::string_view rank = mid.substr(0, dot);
      return dot != std::string_view::npos && !rank.empty() && rank.size() <= 10 &&
             std::all_of(rank.begin(), rank.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
             is_hex(mid.substr(dot + 1));
    }
  }
  return false;
}

std::vector<std::string> run_files(const safe_file::Dir& dir, const std::string& run_id, RunFile kind,
                                   const std::set<std::string>& earlier) {
  std::vector<std::string> out;
  each_run_file(dir, run_id, kind, [&](std::string name, const struct stat&) {
    if (!earlier.count(name)) out.push_back(std::move(name));
  });
  std::sort(out.begin(), out.end());
  return out;
}

std::set<std::string> earlier_run_files(const safe_file::Dir& dir, const std::string& run_id) {
  std::set<std::string> out;
  for (const RunFile kind : {RunFile::kRecord, RunFile::kPartial, RunFile::kNote})
    for (auto& name : run_files(dir, run_id, kind)) out.insert(std::move(name));
  return out;
}

std::string RunIdLock::take(const safe_file::Dir& dir, const std::string& run_id, bool* busy) {
  release();
  *busy = false;
  name_ = "." + run_id + ".run-lock";
  for (int attempt = 0; attempt < 4; ++attempt) {
    if (auto err = safe_file::open_private(dir, name_, O_RDWR | O_CREAT, 0600, &fd_); !err.empty()) return err;
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd_);
      fd_ = -1;
      *busy = true;
      return "run id '" + run_id + "' is in use by another hpcsens run in " + dir.path() +
             " right now; give each run its own id (HPCSENS_RUN_ID) or output directory";
    }
    // Still the file under that name (its last holder removes it when done)?
    struct stat held {}, named {};
    if (::fstat(fd_, &held) == 0 && ::fstatat(dir.fd(), name_.c_str(), &named, AT_SYMLINK_NOFOLLOW) == 0 &&
        held.st_ino == named.st_ino && held.st_dev == named.st_dev) {
      dir_fd_ = ::fcntl(dir.fd(), F_DUPFD_CLOEXEC, 0);  // the caller's Dir may close first
      return "";
    }
    ::close(fd_);
    fd_ = -1;
  }
  return dir.child(name_) + ": replaced while being locked, again and again; try again";
}

void RunIdLock::release() noexcept {
  if (fd_ < 0) return;
  // Removed while still held: a run that opens it afterwards makes and locks a new one.
  if (dir_fd_ >= 0) ::unlinkat(dir_fd_, name_.c_str(), 0), ::close(dir_fd_);
  ::close(fd_);
  fd_ = -1;
  dir_fd_ = -1;
}

std::string find_record_name(const safe_file::Dir& dir, const std::string& run_id, const std::set<std::string>& earlier) {
  std::string best;
  timespec newest{};
  each_run_file(dir, run_id, RunFile::kRecord, [&](std::string name, const struct stat& st) {
    if (earlier.count(name)) return;
    const bool newer = st.st_mtim.tv_sec > newest.tv_sec ||
                       (st.st_mtim.tv_sec == newest.tv_sec && st.st_mtim.tv_nsec > newest.tv_nsec);
    if (best.empty() || newer) {
      best = std::move(name);
      newest = st.st_mtim;
    }
  });
  return best;
}

}  // namespace hpcsens::run
