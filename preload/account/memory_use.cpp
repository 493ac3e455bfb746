#include "preload/account/memory_use.h"

#include <fcntl.h>
#include <unistd.h>

namespace hpcsens::preload {
namespace {

// The first `size - 1` bytes of a /proc file, NUL-terminated ("" when it cannot be read). The
// fields read here are near the start of both files.
std::string_view read_proc(const char* path, char* buf, std::size_t size) noexcept {
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  std::size_t n = 0;
  while (n + 1 < size) {
    const ssize_t got = ::read(fd, buf + n, size - 1 - n);
    if (got <= 0) break;
    n += static_cast<std::size_t>(got);
  }
  ::close(fd);
  buf[n] = '\0';
  return {buf, n};
}

}  // namespace

std::int64_t kib_field(std::string_view text, std::string_view key) noexcept {
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t eol = std::min(text.find('\n', at), text.size());
    const std::string_view line = text.substr(at, eol - at);
    at = eol + 1;
    if (line.substr(0, key.size()) != key) continue;
    std::size_t i = key.size();
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i == line.size() || line[i] < '0' || line[i] > '9') return -1;
    std::int64_t v = 0;
    for (; i < line.size() && line[i] >= '0' && line[i] <= '9' && v < (std::int64_t{1} << 50); ++i)
      v = v * 10 + (line[i] - '0');
    return v;
  }
  return -1;
}

MemoryNow read_memory_now() noexcept {
  char buf[4096];
  MemoryNow m;
  const std::string_view status = read_proc("/proc/self/status", buf, sizeof buf);
  m.peak_rss_kib = kib_field(status, "VmHWM:"), m.rss_kib = kib_field(status, "VmRSS:");
  m.node_total_kib = kib_field(read_proc("/proc/meminfo", buf, sizeof buf), "MemTotal:");
  return m;
}

nlohmann::json memory_json() {
  // Read before anything is put in JSON, so the record's own allocations are not in VmRSS.
  const MemoryNow m = read_memory_now();
  nlohmann::json j = nlohmann::json::object();
  if (m.peak_rss_kib >= 0) j["peak_rss_kib"] = m.peak_rss_kib;
  if (m.rss_kib >= 0) j["rss_kib"] = m.rss_kib;
  if (m.node_total_kib > 0) j["node_total_kib"] = m.node_total_kib;
  return j;
}

}  // namespace hpcsens::preload
