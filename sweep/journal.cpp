#include "sweep/journal.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace hpcsens::sweep {

Journal::Journal(const std::string& dir) : path_(dir + "/" + kJournalName) {
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) throw std::runtime_error("cannot open journal " + path_ + ": " + std::strerror(errno));
  // A crash mid-write leaves a torn last line; start ours on a fresh line so it stays readable.
  const int rd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (rd >= 0) {
    char last = '\n';
    const off_t size = ::lseek(rd, 0, SEEK_END);
    if (size > 0 && ::pread(rd, &last, 1, size - 1) == 1 && last != '\n') (void)!::write(fd_, "\n", 1);
    ::close(rd);
  }
}

Journal::~Journal() {
  if (fd_ >= 0) ::close(fd_);
}

void Journal::append(const nlohmann::json& entry) {
  const std::string line = entry.dump() + "\n";
  std::size_t off = 0;
  while (off < line.size()) {
    const ssize_t n = ::write(fd_, line.data() + off, line.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error("cannot write journal " + path_ + ": " + std::strerror(errno));
    }
    off += std::size_t(n);
  }
  if (::fsync(fd_) != 0) throw std::runtime_error("cannot fsync journal " + path_ + ": " + std::strerror(errno));
}

std::vector<nlohmann::json> read_journal_lines(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read journal " + path);
  std::vector<nlohmann::json> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) continue;  // torn by a crash mid-write
    out.push_back(std::move(j));
  }
  return out;
}

JournalState replay_journal(const std::vector<nlohmann::json>& lines) {
  JournalState s;
  for (const auto& j : lines) {
    const std::string type = j.value("type", "");
    if (type == "header") {
      if (!s.header) s.header = j;
    } else if (type == "originals") {
      // Only the first save counts: a later one (after a resume) would read values the sweep
      // itself had set.
      if (!s.has_originals) {
        s.has_originals = true;
        for (const auto& f : j.value("files", nlohmann::json::array()))
          s.originals.push_back({f.at("path").get<std::string>(), f.at("value").get<std::string>()});
        for (const auto& c : j.value("commands", nlohmann::json::array()))
          s.restore_commands.push_back(c.get<std::vector<std::string>>());
      }
    } else if (type == "apply") {
      s.knobs_dirty = true;
    } else if (type == "restored") {
      s.knobs_dirty = false;
    } else if (type == "run") {
      const std::string id = j.value("id", "");
      if (j.value("status", "") == "ok") {
        s.done.insert(id);
        s.skipped.erase(id);
      } else {
        ++s.failed_attempts[id];
      }
    } else if (type == "lost") {
      // Journalled as done, but its record was gone at a resume: it has to run again.
      s.done.erase(j.value("id", ""));
    } else if (type == "skipped") {
      s.skipped.insert(j.value("id", ""));
    } else if (type == "finished") {
      s.finished = true;
    }
  }
  return s;
}

}  // namespace hpcsens::sweep
