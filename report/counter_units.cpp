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

// A counter mask (":c=N", N > 0: libpfm4's cmask) turns any event into the count of cycles in
// which it counted at least N (Intel SDM vol. 3B 20.2.1; AMD PPR PERF_CTL CntMask), e.g. Zen 4's
// DISPATCH_STALLS_1:FE_NO_OPS:c=6, the cycles in which all six dispatch slots were empty.
bool has_counter_mask(std::string_view event) {
  for (auto at = event.find(":c="); at != std::string_view::npos; at = event.find(":c=", at + 1)) {
    const auto digits = event.substr(at + 3, event.find(':', at + 3) - (at + 3));
    if (!digits.empty() && digits.find_first_not_of("0123456789") == std::string_view::npos &&
        digits.find_first_not_of('0') != std::string_view::npos)
      return true;
  }
  return false;
}

}  // namespace

std::string counter_unit(std::string_view event) {
  const std::string n = base_name(event);
  if (n == "PERF::TASK-CLOCK" || n == "PERF::CPU-CLOCK") return "ns";
  if (has_counter_mask(event)) return "cycles";
  if (has(n, "FAULTS")) return "faults";
  if (has(n, "CONTEXT-SWITCHES") || n == "PERF::CS") return "switches";
  if (has(n, "MIGRATIONS")) return "migrations";
  // Stall and activity events count cycles in which something held (Intel's *_CYCLES,
  // CYCLE_ACTIVITY, EXE_ACTIVITY, CPU_CLK_UNHALTED; PAPI's *_CYC).
  // AMD's UOPS_QUEUE_EMPTY (PMCx0A9) counts cycles in which the op queue was empty; Arm's
  // STALL_FRONTEND and STALL_BACKEND count cycles without issue (Arm ARM D13.12).
  if (has(n, "CYC") || has(n, "CPU_CLK_UNHALTED") || has(n, "CYCLE_ACTIVITY") || has(n, "EXE_ACTIVITY") ||
      has(n, "QUEUE_EMPTY") || n == "STALL_FRONTEND" || n == "STALL_BACKEND")
    return "cycles";
  // Mispredicted branches before instructions: RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED counts
  // branches (as PAPI_BR_MSP does); Arm's BR_MIS_PRED likewise.
  if (n == "PAPI_BR_MSP" || n == "PAPI_BR_INS" || n == "PAPI_BR_CN" || has(n, "BR_MISP") || has(n, "BR_MIS_PRED") ||
      has(n, "BRANCH"))
    return "branches";
  if (n == "PAPI_TOT_INS" || has(n, "INST_RETIRED") || has(n, "INSTRUCTIONS") || has(n, "INSTR_RETIRED"))
    return "instructions";
  if (has(n, "UOPS") || has(n, "UOP_")) return "uops";
  // Pipeline slots (issue or dispatch width x cycles): Intel's TOPDOWN:SLOTS and the kernel's
  // topdown-* events, Arm's STALL_SLOT*, AMD's DISPATCH_STALLS_1 (PMCx1A0, dispatch slots).
  if (has(n, "SLOT") || n.starts_with("TOPDOWN-") || has(n, "DISPATCH_STALLS_1")) return "slots";
  if (n == "PAPI_FP_OPS" || n == "PAPI_SP_OPS" || n == "PAPI_DP_OPS") return "FP operations";
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
