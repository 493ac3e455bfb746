#pragma once
// Why a node task of a multi-node sweep refused to apply a point, kept in the sweep directory
// (nodes/<host>/refused) for its controller to print. The node task also says it on its stderr,
// but that reaches the user through the launcher's I/O forwarding, which can drop the last lines of
// a task that exits at once (srun under load did): the controller's own message must not depend on it.
#include <string>
#include <vector>

namespace hpcsens::sweep {

// Writes (atomically, in this node's directory, created when missing) why this node refused.
// Failures are ignored: the refusal itself still stops the sweep.
void note_node_refusal(const std::string& sweep_dir, const std::string& host, const std::string& why) noexcept;

// Removes a refusal an earlier attempt left for this node (it applies now).
void clear_node_refusal(const std::string& sweep_dir, const std::string& host) noexcept;

// "<host>: <why>" for every node that left a refusal, escaped for a message, in host order.
// Files another user owns or planted (a link, a FIFO) are named as such, never read.
std::vector<std::string> node_refusals(const std::string& sweep_dir);

}  // namespace hpcsens::sweep
