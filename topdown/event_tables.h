#pragma once
// Top-Down event tables per microarchitecture. Event names are libpfm4 4.13 names (what PAPI 7.0
// takes as native event names), written without a PMU prefix so the PMU libpfm4 detects on the
// machine is used; tests encode every x86 name with LIBPFM_FORCE_PMU=<pfm_pmu>.
// Sources: Linux perf tools/perf/pmu-events/arch/... metric files (named per table below) and
// libpfm4 lib/events/*.h for the spelling. See docs/methodology.md "Top-Down analysis".
#include <string>
#include <string_view>
#include <vector>

#include "topdown/event_plan.h"

namespace hpcsens::topdown {

enum class Uarch {
  kUnknown,
  kIntelSkylake,        // Skylake-SP / Cascade Lake / client Skylake..Comet Lake: 4-wide, no PERF_METRICS
  kIntelIceLake,        // Ice Lake / Tiger Lake / Rocket Lake: 5-wide, TOPDOWN.SLOTS
  kIntelSapphireRapids, // Sapphire / Emerald / Granite Rapids: 6-wide, TOPDOWN.*_SLOTS events
  kAmdZen3,             // no slot accounting: stall-cycle ratios
  kAmdZen4,             // 6 dispatch slots
  kAmdZen5,             // 8 dispatch slots
  kArmNeoverseN1,       // no STALL_SLOT events: stall-cycle ratios
  kArmNeoverseV1,       // 8 slots
  kArmNeoverseV2,       // 8 slots
};

// How the level-1 numbers are obtained.
enum class Method {
  kSlots,        // fractions of issue/dispatch slots (Yasin 2014)
  kStallRatios,  // stall cycles / cycles; not a slot breakdown, labelled as such
};

struct UarchInfo {
  Uarch uarch = Uarch::kUnknown;
  std::string label;    // "Intel Skylake-SP class", ...
  std::string pfm_pmu;  // libpfm4 PMU name to encode against ("skx", "icx", ...; Arm: "arm_v1")
  std::string reason;   // why this class was chosen (vendor/family/model or MIDR)
};

UarchInfo classify_cpu(const CpuId& cpu);

struct TopdownTable {
  std::string name;  // event-set name recorded as rank.event_set, e.g. "topdown-skx-smt"
  Uarch uarch = Uarch::kUnknown;
  Method method = Method::kSlots;
  bool smt = false;        // Skylake: SMT formulas (any-thread clocks halved)
  int width = 4;           // issue/dispatch slots per cycle
  std::string pfm_pmu;     // libpfm4 PMU the names are checked against
  std::string source;      // published formula this table implements (file and kernel commit)
  std::vector<EventGroup> groups;  // groups[0] = level 1 (required), later groups = level 2
  // Events counted by raw encoding because Debian's libpfm4 encodes their names wrongly or not
  // at all: said in the plan's note (doctor) and in the record's notes. Empty: none.
  std::string raw_encodings;
};

// Table for a CPU, or nullptr-equivalent (empty name) when none fits.
TopdownTable table_for(const CpuId& cpu);
// Table by its event-set name (as recorded in a run record); empty name if unknown.
TopdownTable table_by_name(std::string_view name);
// Every table (for tests and docs).
std::vector<TopdownTable> all_tables();

// Linux kernel's PERF_METRICS pseudo-events (arch/x86/events/intel/core.c, "topdown-*" sysfs
// events; listed by `perf list` as Kernel PMU events on Ice Lake and later). libpfm4 4.13 does
// not know them: PAPI 7.0 cannot open them, but a record made with them is understood.
const std::vector<std::string>& kernel_topdown_events();
// Arm PMUv3 common/architected event names used by the Neoverse tables (Arm ARM D17.11 common
// event numbers; Neoverse V1/V2/N1 technical reference manuals, PMU events chapter).
const std::vector<std::string>& arm_documented_events();
// PMUv3 common event number of one of those names (the number the Arm tables mean by the name;
// libpfm4's Arm PMU tables are not built into x86 libpfm4, so this is what the test can compare
// with perf's JSON); -1 for any other name.
int arm_event_number(std::string_view name);

// Event names (the keys in a record's counters map).
namespace ev {
// Intel
inline constexpr const char* kInst = "INST_RETIRED:ANY_P";
inline constexpr const char* kClk = "CPU_CLK_UNHALTED:THREAD_P";
inline constexpr const char* kClkAny = "CPU_CLK_UNHALTED:THREAD_P:t=1";  // both SMT threads
inline constexpr const char* kIdqNotDelivered = "IDQ_UOPS_NOT_DELIVERED:CORE";
inline constexpr const char* kIdqCycles0 = "IDQ_UOPS_NOT_DELIVERED:CYCLES_0_UOPS_DELIV_CORE";
inline constexpr const char* kUopsIssued = "UOPS_ISSUED:ANY";
inline constexpr const char* kRetireSlots = "UOPS_RETIRED:RETIRE_SLOTS";
inline constexpr const char* kRecovery = "INT_MISC:RECOVERY_CYCLES";
inline constexpr const char* kRecoveryAny = "INT_MISC:RECOVERY_CYCLES_ANY";
inline constexpr const char* kBrMisp = "BR_MISP_RETIRED:ALL_BRANCHES";
inline constexpr const char* kMachineClears = "MACHINE_CLEARS:COUNT";
inline constexpr const char* kStallsMemAny = "CYCLE_ACTIVITY:STALLS_MEM_ANY";
inline constexpr const char* kStallsTotal = "CYCLE_ACTIVITY:STALLS_TOTAL";
inline constexpr const char* kBoundOnStores = "EXE_ACTIVITY:BOUND_ON_STORES";
inline constexpr const char* kPorts1 = "EXE_ACTIVITY:1_PORTS_UTIL";
inline constexpr const char* kPorts2 = "EXE_ACTIVITY:2_PORTS_UTIL";
inline constexpr const char* kSlots = "TOPDOWN:SLOTS";
inline constexpr const char* kUopsRetiredSlots = "UOPS_RETIRED:SLOTS";
inline constexpr const char* kUopDropping = "INT_MISC:UOP_DROPPING";
inline constexpr const char* kClearsCount = "INT_MISC:CLEARS_COUNT";  // recovery cycles, cmask=1 edge
// TOPDOWN.*_SLOTS (event 0xa4): libpfm4 4.13 encodes these names with event select 0x00 (and
// BAD_SPEC_SLOTS as 0x400, the fixed-counter SLOTS), so they are counted by their raw encoding
// through PAPI's perf_event component (perf_raw::r<umask><event>), as perf's JSON gives it.
inline constexpr const char* kBackendSlots = "perf_raw::r02a4";   // TOPDOWN.BACKEND_BOUND_SLOTS
inline constexpr const char* kBrMispSlots = "perf_raw::r08a4";    // TOPDOWN.BR_MISPREDICT_SLOTS
inline constexpr const char* kMemBoundSlots = "perf_raw::r10a4";  // TOPDOWN.MEMORY_BOUND_SLOTS
inline constexpr const char* kTdRetiring = "topdown-retiring";
inline constexpr const char* kTdBadSpec = "topdown-bad-spec";
inline constexpr const char* kTdFeBound = "topdown-fe-bound";
inline constexpr const char* kTdBeBound = "topdown-be-bound";
inline constexpr const char* kTdMemBound = "topdown-mem-bound";
inline constexpr const char* kTdFetchLat = "topdown-fetch-lat";
inline constexpr const char* kTdBrMispredict = "topdown-br-mispredict";
// AMD
inline constexpr const char* kAmdCycles = "CYCLES_NOT_IN_HALT";
inline constexpr const char* kAmdInst = "RETIRED_INSTRUCTIONS";
inline constexpr const char* kAmdRetOps = "RETIRED_OPS";
inline constexpr const char* kAmdFeNoOps = "DISPATCH_STALLS_1:FE_NO_OPS";
inline constexpr const char* kAmdFeNoOpsLat = "DISPATCH_STALLS_1:FE_NO_OPS:c=6";   // Zen 4: all 6 slots empty
inline constexpr const char* kAmdFeNoOpsLat8 = "DISPATCH_STALLS_1:FE_NO_OPS:c=8";  // Zen 5: all 8
inline constexpr const char* kAmdBeStalls = "DISPATCH_STALLS_1:BE_STALLS";
inline constexpr const char* kAmdSmt = "DISPATCH_STALLS_1:SMT_CONTENTION";
inline constexpr const char* kAmdOpsDispatched = "OPS_SOURCE_DISPATCHED_FROM_DECODER:DECODER:OPCACHE:LOOP_BUFFER";
inline constexpr const char* kAmdBrMisp = "RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED";
inline constexpr const char* kAmdResyncs = "RESYNCS";  // Zen 4 PMCx096
// Zen 5 bp_redirects.resync (PMCx09F umask 0x01): libpfm4 4.13 has no Zen 5 table.
inline constexpr const char* kAmdResyncsZen5 = "perf_raw::r019f";
inline constexpr const char* kAmdNoRetireLoad = "CYCLES_NO_RETIRE:NOT_COMPLETE_MISSING_LOAD";
inline constexpr const char* kAmdNoRetireAll = "CYCLES_NO_RETIRE:NOT_COMPLETE_LOAD_AND_ALU";
inline constexpr const char* kAmdOpQueueEmpty = "UOPS_QUEUE_EMPTY";
inline constexpr const char* kAmdDispStall1 =
    "DISPATCH_RESOURCE_STALL_CYCLES_1:INT_PHY_REG_FILE_RSRC_STALL:LOAD_QUEUE_RSRC_STALL:"
    "STORE_QUEUE_RSRC_STALL:TAKEN_BRANCH_BUFFER_RSRC_STALL:FP_REG_FILE_RSRC_STALL:"
    "FP_SCHEDULER_RSRC_STALL:FP_FLUSH_RECOVERY_STALL";
// PMCx0AF: integer scheduler and retire token stalls, where memory-bound code waits.
inline constexpr const char* kAmdDispStall2 =
    "DISPATCH_RESOURCE_STALL_CYCLES_2:INT_SCHEDULER_0_TOKEN_STALL:INT_SCHEDULER_1_TOKEN_STALL:"
    "INT_SCHEDULER_2_TOKEN_STALL:INT_SCHEDULER_3_TOKEN_STALL:RETIRE_TOKEN_STALL";
// Arm
inline constexpr const char* kArmCycles = "CPU_CYCLES";
inline constexpr const char* kArmInst = "INST_RETIRED";
inline constexpr const char* kArmStallSlot = "STALL_SLOT";
inline constexpr const char* kArmStallSlotFe = "STALL_SLOT_FRONTEND";
inline constexpr const char* kArmStallSlotBe = "STALL_SLOT_BACKEND";
inline constexpr const char* kArmOpSpec = "OP_SPEC";
inline constexpr const char* kArmOpRetired = "OP_RETIRED";
inline constexpr const char* kArmBrMisPred = "BR_MIS_PRED";
inline constexpr const char* kArmStallFe = "STALL_FRONTEND";
inline constexpr const char* kArmStallBe = "STALL_BACKEND";
// Software (PAPI perf_event component), nanoseconds of task time: achieved frequency.
inline constexpr const char* kTaskClock = "perf::TASK-CLOCK";
}  // namespace ev

}  // namespace hpcsens::topdown
