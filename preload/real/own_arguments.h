#pragma once
#include <string>
#include <vector>

namespace hpcsens::preload {

// The process's own argv from /proc/self/cmdline, raw bytes (empty if unreadable). Plain
// read(2), not a stream: iostreams would pull libstdc++'s locale machinery into the preload
// and so into every rank's resident memory (docs/methodology.md "Memory").
std::vector<std::string> own_arguments();

}  // namespace hpcsens::preload
