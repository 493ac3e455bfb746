#pragma once
// Where the node's counter agent listens and how the node's other ranks reach it: a Unix socket
// in a fresh directory only this user can enter (common/private_dir.h), never one in a directory
// another user controls. A rank that connects checks, from the kernel's SO_PEERCRED, that the
// socket was made by its node's first rank (pid; it hands the socket to the agent it starts) as
// this user (uid).
#include <sys/types.h>

#include <string>

#include "common/safe_file.h"

namespace hpcsens::preload {

inline constexpr char kAgentSocketName[] = "agent.sock";

struct AgentSocket {
  safe_file::Dir dir;  // the private directory holding the socket
  std::string path;    // "<dir>/agent.sock", for the other ranks
  int listener = -1;   // close-on-exec; handed to the agent, then closed here
};

// A fresh private directory with a listening socket in it; "" or why not.
std::string listen_for_ranks(AgentSocket* out);
// Closes our listening descriptor (the agent holds its own) and removes the socket and its
// directory: once every rank of the node has connected, nobody needs the name.
void remove_agent_socket(AgentSocket& s);
// A connection to the agent at `path`, whose socket process `owner_pid` of this user must have
// made; -1 and *error otherwise.
int connect_to_agent(const std::string& path, pid_t owner_pid, std::string* error);

}  // namespace hpcsens::preload
