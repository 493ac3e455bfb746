#include "sweep/journal/journal.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "common/errors.h"

namespace hpcsens::sweep {

Journal::Journal(const safe_file::Dir& dir) { open(dir); }

Journal::Journal(const std::string& dir) {
  safe_file::Dir d;
  if (auto err = safe_file::open_dir(dir, false, &d); !err.empty()) throw std::runtime_error(err);
  open(d);
}

void Journal::open(const safe_file::Dir& dir) {
  path_ = dir.child(kJournalName);
  // A planted symlink, hard link or another user's file is refused: exit 2, naming it.
  if (auto err = safe_file::open_append(dir, kJournalName, &fd_); !err.empty()) throw InputError("hpcsens sweep", err);
  // A crash mid-write leaves a torn last line; start ours on a fresh line so it stays readable.
  // Read through a second descriptor checked like the first, and only if it is the same file.
  int rd = -1;
  struct stat ws {}, rs {};
  if (safe_file::open_private(dir, kJournalName, O_RDONLY, 0, &rd).empty()) {
    char last = '\n';
    const off_t size = ::fstat(rd, &rs) == 0 && ::fstat(fd_, &ws) == 0 && rs.st_ino == ws.st_ino &&
                               rs.st_dev == ws.st_dev ? rs.st_size : 0;
    if (size > 0 && ::pread(rd, &last, 1, size - 1) == 1 && last != '\n') (void)!::write(fd_, "\n", 1);
    ::close(rd);
  }
}

Journal::~Journal() {
  if (fd_ >= 0) ::close(fd_);
}

void Journal::append(const nlohmann::json& entry) {
  const std::string line = entry.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  if (auto err = safe_file::write_all(fd_, line, "journal " + path_); !err.empty()) throw std::runtime_error(err);
  if (::fsync(fd_) != 0) throw std::runtime_error("cannot fsync journal " + path_ + ": " + std::strerror(errno));
}

namespace {

std::string read_private_file(const safe_file::Dir& dir, const std::string& name) {
  const std::string path = dir.child(name);
  int fd = -1;
  // Never blocks on a planted FIFO, never follows a link, checks type and owner on the descriptor.
  if (auto err = safe_file::open_private(dir, name, O_RDONLY, 0, &fd); !err.empty())
    throw InputError(err);
  struct stat st {};
  std::string problem;
  if (::fstat(fd, &st) != 0) problem = std::string("cannot read: ") + std::strerror(errno);
  else if (st.st_mode & (S_IWGRP | S_IWOTH)) problem = "is writable by group or others; refusing to trust it";
  else if (std::size_t(st.st_size) > kMaxJournalBytes) problem = "is larger than " + std::to_string(kMaxJournalBytes) + " bytes";
  std::string text;
  char buf[65536];
  ssize_t n = 0;
  while (problem.empty() && (n = ::read(fd, buf, sizeof buf)) != 0) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) problem = std::string("cannot read: ") + std::strerror(errno);
    else text.append(buf, std::size_t(n));
    if (text.size() > kMaxJournalBytes) problem = "grew beyond " + std::to_string(kMaxJournalBytes) + " bytes";
  }
  ::close(fd);
  if (!problem.empty()) throw InputError(path, problem);
  return text;
}

JournalLines parse_lines(const std::string& text, const std::string& path) {
  JournalLines out;
  out.path = path;
  std::size_t pos = 0;
  int line_no = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (line.empty()) continue;
    auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    const bool bad = j.is_discarded() || !j.is_object();
    out.torn_tail = bad;
    if (bad && out.unparsable++ == 0) out.first_unparsable = line_no;
    else out.lines.emplace_back(line_no, std::move(j));
  }
  return out;
}

}  // namespace

JournalFile journal_file(const safe_file::Dir& dir, std::string* why) {
  struct stat st {};
  if (::fstatat(dir.fd(), kJournalName, &st, AT_SYMLINK_NOFOLLOW) != 0)
    return errno == ENOENT ? JournalFile::kMissing : JournalFile::kOurs;  // unreadable: the reader says why
  const std::string path = dir.child(kJournalName);
  const std::string uid = std::to_string(st.st_uid);
  if (!S_ISREG(st.st_mode)) {
    *why = path + ": " + safe_file::file_type_problem(st.st_mode) + (st.st_uid != ::geteuid() ? " (owned by uid " + uid + ")" : "");
    return JournalFile::kForeign;
  }
  if (st.st_uid != ::geteuid()) *why = path + ": is owned by another user (uid " + uid + ")";
  else if (st.st_nlink != 1) *why = path + ": has several hard links";
  else return JournalFile::kOurs;
  return JournalFile::kUntrusted;
}

JournalLines read_journal(const safe_file::Dir& dir) {
  return parse_lines(read_private_file(dir, kJournalName), dir.child(kJournalName));
}

JournalLines read_journal_lines(const std::string& path) {
  const auto slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  safe_file::Dir d;
  if (auto err = safe_file::open_dir(dir, false, &d); !err.empty()) throw InputError(path, err);
  return parse_lines(read_private_file(d, path.substr(slash + 1)), path);
}

std::string unparsable_warning(const JournalLines& l) {
  if (l.unparsable == 0) return "";
  const int inner = l.unparsable - (l.torn_tail ? 1 : 0);
  std::string s = std::to_string(l.unparsable) + " line" + (l.unparsable > 1 ? "s" : "") + " of " + l.path +
                  " are not valid JSON objects and were ignored";
  if (l.torn_tail) s += " (the last one torn by a crash mid-write";
  if (l.torn_tail && inner > 0) s += "; " + std::to_string(inner) + " elsewhere in the file";
  if (l.torn_tail) s += ")";
  return s;
}

bool saved_values_lost(const JournalState& s) {
  if (s.has_originals || s.unparsable_inner == 0) return false;
  // A header that says the sweep saved no knob values (older journals: an emulated sweep).
  if (s.header && (!s.header->value("saves_knobs", true) || s.header->value("emulated", false))) return false;
  return true;
}

JournalState replay_journal(const std::vector<nlohmann::json>& lines) {
  JournalLines l;
  l.path = "journal";
  int n = 0;
  for (const auto& j : lines) l.lines.emplace_back(++n, j);
  return replay_journal(l);
}

}  // namespace hpcsens::sweep
