#pragma once
// What the preload and its counter agent say to each other over a rank's connection (the
// spawning rank's socketpair, or another rank's connection to the node agent's listening
// socket): one JSON object per message, framed by a 4-byte length. The rank asks, the agent
// answers every request with that rank's whole state (see docs/methodology.md "Memory").
//   rank -> agent: {"op":"prepare","spec":S,"tid":T}  {"op":"start"}  {"op":"stop"}
//   agent -> rank: {"status","warn","notes","multiplexed","event_set","values","vmhwm_kib",
//                   "private_dirty_kib","ranks"}   (ranks: how many ranks this agent has served)
//                  + "node_energy" (the node agent's answer to "stop": energy/sampler.h)
// Only set-up and finalize talk: nothing here is on the preload's per-call path.
#include <string>

namespace hpcsens::agent {

// The agent's file, relative to the directory holding the preload library (build and install).
inline constexpr char kAgentRelPath[] = "hpcsens/hpcsens-counter-agent";
// The descriptor the agent finds its end of the socketpair on.
inline constexpr int kAgentFd = 3;
// The node agent's listening socket (--serve-node), bound by the spawning rank in a private
// directory (common/private_dir.h) before the agent starts.
inline constexpr int kListenFd = 4;
// Longest message either side accepts (notes of a large refused plan stay far below it).
inline constexpr unsigned kMaxMessage = 1u << 20;

// Whole message or false (peer gone, error). Never raises SIGPIPE.
bool send_message(int fd, const std::string& text);
// One whole message into *text. timeout_ms < 0 waits for ever. On false, *error says why
// ("agent closed the connection", "no answer within N s", an errno text).
bool receive_message(int fd, std::string* text, int timeout_ms, std::string* error);

}  // namespace hpcsens::agent
