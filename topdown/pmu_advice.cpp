#include "topdown/pmu_advice.h"

#include <cstdio>
#include <filesystem>

namespace hpcsens::topdown {

std::string cpu_words(const CpuId& cpu) {
  const auto hex = [](int v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%#x", static_cast<unsigned>(v));
    return std::string(buf);
  };
  if (cpu.vendor == "GenuineIntel") return "Intel family " + std::to_string(cpu.family) + " model " + hex(cpu.model);
  if (cpu.vendor == "AuthenticAMD") return "AMD family " + hex(cpu.family) + " model " + hex(cpu.model);
  if (cpu.arm_implementer >= 0) return "Arm implementer " + hex(cpu.arm_implementer) + " part " + hex(cpu.arm_part);
  return "vendor '" + cpu.vendor + "' family " + std::to_string(cpu.family) + " model " + std::to_string(cpu.model);
}

bool kernel_software_pmu(const std::string& root) {
  std::error_code ec;
  return std::filesystem::exists(std::filesystem::path(root) / "sys/bus/event_source/devices/software", ec);
}

PmuAdvice perf_component_advice(std::string_view disabled_reason, const CpuId& cpu,
                                bool kernel_software_pmu) {
  const std::string reason = disabled_reason.empty() ? "no reason given" : std::string(disabled_reason);
  PmuAdvice a;
  a.detail = "PAPI's perf_event component is disabled (" + reason + ")";
  // libpfm4 needs one core PMU it recognises (a model table, or Intel's architectural PMU read
  // from CPUID leaf 0xa); without one PAPI switches the whole component off.
  if (disabled_reason.find("no default PMU") != std::string_view::npos) {
    a.detail += ": libpfm4 recognises no core PMU on this CPU (" + cpu_words(cpu) + ")";
    if (cpu.virtualised) a.detail += " and this virtual machine exposes none";
    a.detail += ", so PAPI counts nothing here, software events included";
    if (kernel_software_pmu) a.detail += "; the kernel's software events exist, PAPI cannot reach them";
    a.fix = "run with --events none (timings, MPI, I/O and a sweep's rates do not need counters); to count, ";
    if (cpu.virtualised) a.fix += "give the VM a PMU (PMU passthrough), or ";
    a.fix += "install a libpfm4 and PAPI that know this CPU";
    return a;
  }
  a.detail += ", so PAPI counts nothing here";
  a.fix = kernel_software_pmu
              ? "see PAPI's reason above (papi_component_avail shows it); or run with --events none"
              : "use a kernel built with CONFIG_PERF_EVENTS (no /sys/bus/event_source/devices/software here); or run with --events none";
  return a;
}

}  // namespace hpcsens::topdown
