#include "sweep/process/process_identity.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace hpcsens::sweep {
namespace {

std::string read_small(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string text;
  std::getline(in, text);
  return text;
}

// The state letter (field 3) of a stat line, or '?'.
char state_of_stat(const std::string& stat_line) {
  const auto close = stat_line.rfind(')');
  return close != std::string::npos && close + 2 < stat_line.size() ? stat_line[close + 2] : '?';
}

}  // namespace

bool start_ticks_of_stat(const std::string& stat_line, unsigned long long* ticks) {
  const auto close = stat_line.rfind(')');
  if (close == std::string::npos) return false;
  std::istringstream in(stat_line.substr(close + 1));
  std::string field;
  // After the comm field come field 3 (state) ... field 22 (starttime): 20 fields.
  for (int i = 3; i <= 22; ++i)
    if (!(in >> field)) return false;
  char* end = nullptr;
  *ticks = std::strtoull(field.c_str(), &end, 10);
  return end != field.c_str() && *end == '\0';
}

std::string current_boot_id() { return read_small("/proc/sys/kernel/random/boot_id"); }

ProcessIdentity identify_process(int pid) {
  ProcessIdentity id;
  unsigned long long ticks = 0;
  if (pid <= 0 || !start_ticks_of_stat(read_small("/proc/" + std::to_string(pid) + "/stat"), &ticks)) return id;
  id.pid = pid;
  id.start_ticks = ticks;
  id.boot_id = current_boot_id();
  return id;
}

bool still_running(const ProcessIdentity& id) {
  if (id.pid <= 0 || id.boot_id != current_boot_id()) return false;
  const std::string stat = read_small("/proc/" + std::to_string(id.pid) + "/stat");
  unsigned long long ticks = 0;
  return start_ticks_of_stat(stat, &ticks) && ticks == id.start_ticks && state_of_stat(stat) != 'Z';
}

}  // namespace hpcsens::sweep
