#pragma once
// What a disabled PAPI perf_event component means on this machine, and what to do (pure: the
// component's reason and the CPU are passed in, so every case is tested without the hardware).
//
// Seen on a 16-core Intel Xeon virtual machine (family 6 model 0xcf) with Debian 12's PAPI 7.0
// and libpfm4 4.13: the VM exposes no architectural PMU and libpfm4 has no table for that
// model, so PAPI disables perf_event ("Error libpfm4 no default PMU found") and refuses even
// perf::TASK-CLOCK, although the kernel's software events are there.
#include <string>
#include <string_view>

#include "topdown/event_plan.h"

namespace hpcsens::topdown {

struct PmuAdvice {
  std::string detail;  // what is wrong, in the user's terms (starts "PAPI's perf_event component is disabled")
  std::string fix;     // what to do about it
};

// `disabled_reason`: PAPI's disabled_reason for perf_event (empty: "no reason given").
// `kernel_software_pmu`: <root>/sys/bus/event_source/devices/software exists.
PmuAdvice perf_component_advice(std::string_view disabled_reason, const CpuId& cpu,
                                bool kernel_software_pmu);

// Whether the kernel under `root` ("/", or a fake tree in tests) has its software PMU
// (<root>/sys/bus/event_source/devices/software): perf events exist, whatever PAPI makes of them.
bool kernel_software_pmu(const std::string& root);

// "Intel family 6 model 0xcf", "AMD family 0x19 model 0x1", "Arm implementer 0x41 part 0xd40".
std::string cpu_words(const CpuId& cpu);

}  // namespace hpcsens::topdown
