#include "report/counter_units.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "common/human_units.h"

namespace hpcsens::report {
namespace {

bool has(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

// Upper case, without a libpfm4 PMU prefix (perf:: stays: its names are the kernel's) and
// without modifiers after the event's own ':' qualifiers that hold '=' (":k=1").
std::string base_name(std::string_view event) {
  const auto colons = event.find("::");
  if (colons != std::string_view::npos && event.substr(0, colons) != "perf" && event.substr(0, colons) != "perf_raw")
    event.remove_prefix(colons + 2);
  std::string out(event);
  if (const auto eq = out.find('='); eq != std::string::npos) out.erase(out.rfind(':', eq));
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::toupper(c); });
  return out;
}

}  // namespace

std::string counter_unit(std::string_view event) {
  const std::string n = base_name(event);
  if (n == "PERF::TASK-CLOCK" || n == "PERF::CPU-CLOCK") return "ns";
  if (has(n, "FAULTS")) return "faults";
  if (has(n, "CONTEXT-SWITCHES") || n == "PERF::CS") return "switches";
  if (has(n, "MIGRATIONS")) return "migrations";
  // Stall and activity events count cycles in which something held (Intel's *_CYCLES,
  // CYCLE_ACTIVITY, EXE_ACTIVITY, CPU_CLK_UNHALTED; PAPI's *_CYC).
  if (has(n, "CYC") || has(n, "CPU_CLK_UNHALTED") || has(n, "CYCLE_ACTIVITY") || has(n, "EXE_ACTIVITY"))
    return "cycles";
  if (n == "PAPI_TOT_INS" || has(n, "INST_RETIRED") || has(n, "INSTRUCTIONS") || has(n, "INSTR_RETIRED"))
    return "instructions";
  if (has(n, "UOPS")) return "uops";
  if (n == "PAPI_FP_OPS" || n == "PAPI_SP_OPS" || n == "PAPI_DP_OPS") return "FP operations";
  if (n == "PAPI_BR_MSP" || n == "PAPI_BR_INS" || n == "PAPI_BR_CN" || has(n, "BR_MISP") || has(n, "BRANCH"))
    return "branches";
  if (n.starts_with("PAPI_") && (n.ends_with("_DCM") || n.ends_with("_ICM") || n.ends_with("_TCM") ||
                                 n.ends_with("_LDM") || n.ends_with("_STM") || n.ends_with("_TLB_DM") ||
                                 n.ends_with("_TLB_IM")))
    return "misses";
  return "count";
}

std::string counter_value_text(double v) {
  if (!std::isfinite(v)) return "-";
  if (v == std::floor(v)) return human::grouped(v, 0);
  return human::grouped(v, std::fabs(v) >= 100 ? 1 : 3);
}

}  // namespace hpcsens::report
