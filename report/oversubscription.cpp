#include "report/oversubscription.h"

#include <fmt/core.h>

namespace hpcsens::report {

std::string oversubscription(const CpuTotals& cpu) {
  const std::string* worst = nullptr;
  double worst_ratio = 1;
  for (const auto& [host, h] : cpu.hosts) {
    if (h.online <= 0) continue;
    const double ratio = static_cast<double>(h.ranks) / static_cast<double>(h.online);
    if (ratio > worst_ratio) worst_ratio = ratio, worst = &host;
  }
  if (worst != nullptr) {
    const HostCpus& h = cpu.hosts.at(*worst);
    return fmt::format("host {}: {} ranks on {} online CPU{}", worst->empty() ? "?" : *worst, h.ranks, h.online,
                       h.online == 1 ? "" : "s");
  }
  // Hosts with CPUs enough can still be crowded (other jobs, a cpuset smaller than the host):
  // more than a quarter of the ranks mostly off the CPU says so.
  if (cpu.ranks > 0 && cpu.starved * 4 > cpu.ranks)
    return fmt::format("{} of {} rank{} {} on a CPU for less than half of {} time outside I/O", cpu.starved,
                       cpu.ranks, cpu.ranks == 1 ? "" : "s", cpu.starved == 1 ? "was" : "were",
                       cpu.starved == 1 ? "its" : "their");
  return "";
}

}  // namespace hpcsens::report
