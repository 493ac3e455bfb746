#include "sweep/journal/locks.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "common/errors.h"
#include "sweep/journal/journal.h"

namespace hpcsens::sweep {
namespace {

std::string read_fd(int fd) {
  std::string text;
  char buf[4096];
  ssize_t n;
  while ((n = ::pread(fd, buf, sizeof buf, off_t(text.size()))) > 0 && text.size() < 65536)
    text.append(buf, std::size_t(n));
  return text;
}

// "pid 123" / {"pid": 123, ...} -> "pid 123" for messages.
std::string holder_of(const std::string& text) {
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_object() && j.contains("pid") && j["pid"].is_number_integer())
    return "pid " + std::to_string(j["pid"].get<long long>()) +
           (j.contains("host") && j["host"].is_string() ? " on " + j["host"].get<std::string>() : "") +
           (j.contains("dir") && j["dir"].is_string() ? ", sweep " + j["dir"].get<std::string>() : "");
  return "pid unknown";
}

// Lock file names: the sysfs root with every byte outside [A-Za-z0-9._-] as %XX.
std::string key_of(const std::string& root) {
  std::string k = "sweep-knobs";
  for (unsigned char c : root) {
    if (std::isalnum(c) || c == '.' || c == '_' || c == '-') k += char(c);
    else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      k += buf;
    }
  }
  return k + ".lock";
}

std::vector<int>& lock_fds() {
  static std::vector<int> fds;
  return fds;
}

void forget_fd(int fd) {
  auto& v = lock_fds();
  v.erase(std::remove(v.begin(), v.end(), fd), v.end());
}

}  // namespace

const std::vector<int>& held_lock_fds() { return lock_fds(); }

FileLock& FileLock::operator=(FileLock&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) forget_fd(fd_), ::close(fd_);
    fd_ = o.fd_;
    path_ = std::move(o.path_);
    previous = std::move(o.previous);
    o.fd_ = -1;
  }
  return *this;
}

FileLock::~FileLock() {
  if (fd_ >= 0) forget_fd(fd_), ::close(fd_);
}

void FileLock::note(const std::string& text) const {
  if (fd_ < 0) return;
  // Best effort: the lock is the flock, the text only names the holder.
  if (::ftruncate(fd_, 0) == 0) (void)!::pwrite(fd_, text.data(), text.size(), 0);
}

FileLock take_lock(const safe_file::Dir& dir, const std::string& name, const std::string& what,
                   std::string* busy_note) {
  FileLock l;
  l.path_ = dir.child(name);
  int fd = -1;
  // A FIFO, link or another user's file planted under the lock's name is refused, never waited on.
  if (auto err = safe_file::open_private(dir, name, O_RDWR | O_CREAT, 0600, &fd); !err.empty())
    throw InputError("cannot use the lock file: " + err);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int e = errno;
    const std::string note = read_fd(fd);
    ::close(fd);
    if (e == EWOULDBLOCK && busy_note != nullptr) {
      *busy_note = note;
      return l;
    }
    const std::string holder = holder_of(note);
    if (e == EWOULDBLOCK)
      throw InputError(what, "is in use by another hpcsens sweep (" + holder + "); wait for it to end or stop it");
    throw InputError(l.path_, std::string("cannot lock: ") + std::strerror(e));
  }
  l.fd_ = fd;
  lock_fds().push_back(fd);
  l.previous = read_fd(fd);
  return l;
}

FileLock lock_sweep_dir(const safe_file::Dir& dir) {
  FileLock l = take_lock(dir, ".hpcsens-sweep.lock", dir.path());
  l.note(nlohmann::json{{"pid", ::getpid()}, {"dir", dir.path()}}.dump() + "\n");
  return l;
}

std::string machine_lock_dir() {
  const char* d = std::getenv("HPCSENS_LOCK_DIR");
  return d && *d ? d : "/run/hpcsens";
}

namespace {

safe_file::Dir open_lock_dir() {
  safe_file::Dir dir;
  if (auto err = safe_file::open_dir(machine_lock_dir(), true, &dir); !err.empty())
    throw InputError(machine_lock_dir(), "cannot use the machine-wide sweep lock directory: " + err);
  return dir;
}

// One machine, one key: "/sys", "/sys/" and a symlink to it name the same knobs.
std::string lock_name(const std::string& sysfs_root) {
  std::error_code ec;
  const std::string canonical = std::filesystem::weakly_canonical(sysfs_root, ec).string();
  return key_of(ec ? sysfs_root : canonical);
}

std::string this_host() {
  char host[256] = "localhost";
  ::gethostname(host, sizeof host - 1);
  return host;
}

std::string note_of(const std::string& root, const SweepIdentity& who, bool node_task) {
  nlohmann::json n = {{"pid", ::getpid()}, {"host", this_host()}, {"dir", who.dir}, {"root", root}, {"token", who.token}};
  if (node_task) n["node_task"] = true;
  return n.dump() + "\n";
}

// The sweep directory a lock's note names, or "" (a damaged note names none).
std::string note_dir(const nlohmann::json& note) {
  const auto it = note.is_object() ? note.find("dir") : note.end();
  return note.is_object() && it != note.end() && it->is_string() ? it->get<std::string>() : "";
}

bool same_sweep(const nlohmann::json& note, const SweepIdentity& who) {
  if (note_dir(note) == who.dir) return true;  // the same sweep resumed or restoring
  return !who.token.empty() && note.contains("token") && note["token"].is_string() && note["token"] == who.token;
}

// Whether the sweep in `dir` has knobs changed and not restored (its journal says so, or it
// cannot be read: then we must assume so). No journal at all (none, or something not a file
// planted under its name) means it never saved a value and so changed nothing (journal.h).
bool knobs_left_changed(const std::string& dir) {
  try {
    safe_file::Dir od;
    if (!safe_file::open_dir(dir, false, &od).empty()) return true;
    std::string why;
    if (const auto f = journal_file(od, &why); f == JournalFile::kMissing || f == JournalFile::kForeign) return false;
    const auto st = replay_journal(read_journal(od));
    return (st.knobs_dirty && (!st.originals.empty() || !st.restore_actions.empty() || st.per_node_nnodes)) ||
           !st.resctrl_groups.empty() || saved_values_lost(st);
  } catch (const std::exception&) {
    return true;
  }
}

// The lock is ours now; its previous note may name another sweep that changed these knobs.
void refuse_foreign_changes(const FileLock& l, const std::string& root, const SweepIdentity& who) {
  const auto prev = nlohmann::json::parse(l.previous, nullptr, false);
  if (!prev.is_object() || !prev.contains("dir") || !prev["dir"].is_string() || same_sweep(prev, who)) return;
  const std::string other = prev["dir"].get<std::string>();
  if (!knobs_left_changed(other)) return;
  const std::string restore = "`hpcsens sweep --restore " + other + "`";
  if (prev.value("node_task", false))
    throw InputError("the knobs under " + root + " on " + this_host(),
                     "are in use by the multi-node sweep in " + other + " (its node task, " + holder_of(l.previous) +
                         ", changed them and they are not restored yet); wait for that sweep to end, or if it "
                         "died, run " + restore + " first");
  throw InputError("the knobs under " + root,
                   "were left changed by a sweep that died (" + holder_of(l.previous) + "); run " + restore +
                       " first (or, if that directory is gone and the knobs are right, remove " + l.path() + ")");
}

}  // namespace

FileLock lock_machine(const std::string& sysfs_root, const SweepIdentity& who) {
  const safe_file::Dir dir = open_lock_dir();
  FileLock l = take_lock(dir, lock_name(sysfs_root), "the knobs under " + sysfs_root);
  refuse_foreign_changes(l, sysfs_root, who);
  l.note(note_of(sysfs_root, who, false));
  return l;
}

FileLock lock_node_for_sweep(const std::string& sysfs_root, const SweepIdentity& who) {
  const safe_file::Dir dir = open_lock_dir();
  std::string busy;
  FileLock l = take_lock(dir, lock_name(sysfs_root), "the knobs under " + sysfs_root, &busy);
  if (!l.held()) {
    const auto holder = nlohmann::json::parse(busy, nullptr, false);
    if (holder.is_object() && same_sweep(holder, who)) return l;  // our controller holds it here
    throw InputError("the knobs under " + sysfs_root + " on " + this_host(),
                     "are in use by another hpcsens sweep (" + holder_of(busy) + "); this node's part of the sweep in " +
                         who.dir + " changes nothing");
  }
  refuse_foreign_changes(l, sysfs_root, who);
  l.note(note_of(sysfs_root, who, true));
  return l;
}

void release_machine(FileLock& lock) { lock.note(""); }

std::vector<std::string> clear_machine_locks_of(const std::string& abs_dir, std::vector<std::string>* busy) {
  std::vector<std::string> cleared;
  safe_file::Dir dir;
  if (!safe_file::open_dir(machine_lock_dir(), false, &dir).empty()) return cleared;  // none was ever taken
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir.path(), ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind("sweep-knobs", 0) != 0 || name.size() < 5 || name.compare(name.size() - 5, 5, ".lock") != 0) continue;
    std::string holder;
    FileLock l;
    try {
      l = take_lock(dir, name, dir.child(name), &holder);
    } catch (const InputError& e) {
      if (busy) busy->push_back(e.what());
      continue;
    }
    const auto note = nlohmann::json::parse(l.held() ? l.previous : holder, nullptr, false);
    if (note_dir(note) != abs_dir) continue;
    if (!l.held()) {
      if (busy) busy->push_back(l.path() + ": held by the live process " + holder_of(holder));
      continue;
    }
    release_machine(l);
    cleared.push_back(l.path());
  }
  return cleared;
}

}  // namespace hpcsens::sweep
