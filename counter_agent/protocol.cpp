#include "counter_agent/protocol.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>

namespace hpcsens::agent {
namespace {

bool send_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    const ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

using Clock = std::chrono::steady_clock;

// Reads exactly n bytes before `deadline` (none when timeout_ms < 0).
bool recv_all(int fd, char* p, size_t n, int timeout_ms, Clock::time_point deadline,
              std::string* error) {
  while (n > 0) {
    int wait = -1;
    if (timeout_ms >= 0) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      wait = static_cast<int>(std::max<long long>(0, left.count()));
    }
    pollfd pfd{fd, POLLIN, 0};
    const int ready = ::poll(&pfd, 1, wait);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {
      *error = "no answer within " + std::to_string(timeout_ms / 1000) + " s";
      return false;
    }
    const ssize_t r = ready < 0 ? -1 : ::recv(fd, p, n, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) {
      *error = "agent closed the connection";
      return false;
    }
    if (r < 0) {
      *error = std::strerror(errno);
      return false;
    }
    p += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

}  // namespace

bool send_message(int fd, const std::string& text) {
  if (text.size() > kMaxMessage) return false;
  const uint32_t n = static_cast<uint32_t>(text.size());
  unsigned char len[4] = {static_cast<unsigned char>(n), static_cast<unsigned char>(n >> 8),
                          static_cast<unsigned char>(n >> 16), static_cast<unsigned char>(n >> 24)};
  return send_all(fd, reinterpret_cast<const char*>(len), 4) && send_all(fd, text.data(), text.size());
}

bool receive_message(int fd, std::string* text, int timeout_ms, std::string* error) {
  const auto deadline = Clock::now() + std::chrono::milliseconds(std::max(timeout_ms, 0));
  unsigned char len[4];
  if (!recv_all(fd, reinterpret_cast<char*>(len), 4, timeout_ms, deadline, error)) return false;
  const uint32_t n = len[0] | (len[1] << 8) | (len[2] << 16) | (static_cast<uint32_t>(len[3]) << 24);
  if (n > kMaxMessage) {
    *error = "message of " + std::to_string(n) + " bytes is over the limit";
    return false;
  }
  text->assign(n, '\0');
  return recv_all(fd, text->data(), n, timeout_ms, deadline, error);
}

}  // namespace hpcsens::agent
