#include "preload/account/agent_socket.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/private_dir.h"

namespace hpcsens::preload {
namespace {

bool fill_address(const std::string& path, sockaddr_un* a) {
  *a = {};
  a->sun_family = AF_UNIX;
  if (path.size() >= sizeof a->sun_path) return false;
  std::memcpy(a->sun_path, path.c_str(), path.size() + 1);
  return true;
}

}  // namespace

std::string listen_for_ranks(AgentSocket* out) {
  if (auto err = safe_file::make_private_dir("agent", &out->dir); !err.empty()) return err;
  out->path = out->dir.child(kAgentSocketName);
  // Bound through the directory's descriptor: the name cannot be redirected after the checks.
  const std::string via_fd = "/proc/self/fd/" + std::to_string(out->dir.fd()) + "/" + kAgentSocketName;
  sockaddr_un a;
  std::string err;
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    err = std::string("no socket: ") + std::strerror(errno);
  } else if (!fill_address(via_fd, &a) || out->path.size() >= sizeof a.sun_path) {
    err = "socket path " + out->path + " is too long for a Unix socket";
  } else if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd, SOMAXCONN) != 0) {
    err = "cannot listen on " + out->path + ": " + std::strerror(errno);
  }
  if (err.empty()) {
    out->listener = fd;
    return "";
  }
  if (fd >= 0) ::close(fd);
  safe_file::remove_private_dir(out->dir, {kAgentSocketName});
  return err;
}

void remove_agent_socket(AgentSocket& s) {
  if (s.listener >= 0) ::close(s.listener);
  s.listener = -1;
  safe_file::remove_private_dir(s.dir, {kAgentSocketName});
}

int connect_to_agent(const std::string& path, pid_t owner_pid, std::string* error) {
  sockaddr_un a;
  if (!fill_address(path, &a)) {
    *error = "socket path " + path + " is too long";
    return -1;
  }
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    *error = "cannot connect to " + path + ": " + std::strerror(errno);
    if (fd >= 0) ::close(fd);
    return -1;
  }
  // A connected socket's peer credentials are those of the process that called listen(): the
  // node's first rank, which then handed the socket to the agent it started.
  ucred peer{};
  socklen_t len = sizeof peer;
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &len) != 0 || peer.pid != owner_pid ||
      peer.uid != ::geteuid()) {
    *error = path + " is not the node agent's socket (it must be made by pid " + std::to_string(owner_pid) +
             " of uid " + std::to_string(::geteuid()) + "; it was made by pid " + std::to_string(peer.pid) +
             " of uid " + std::to_string(peer.uid) + ")";
    ::close(fd);
    return -1;
  }
  return fd;
}

}  // namespace hpcsens::preload
