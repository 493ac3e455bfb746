#include "topdown/event_tables.h"

#include "topdown/pmu_advice.h"

namespace hpcsens::topdown {
namespace {

// Intel family 6 model numbers (Intel SDM vol. 4, table 2-1; kernel arch/x86/include/asm/intel-family.h).
bool is_intel_skylake_class(int model) {
  switch (model) {
    case 0x55:  // Skylake-SP, Cascade Lake, Cooper Lake
    case 0x4E: case 0x5E:  // Skylake client
    case 0x8E: case 0x9E:  // Kaby / Coffee / Whiskey Lake
    case 0xA5: case 0xA6:  // Comet Lake
      return true;
    default:
      return false;
  }
}
bool is_intel_icelake_class(int model) {
  switch (model) {
    case 0x6A: case 0x6C:  // Ice Lake-SP, Ice Lake-D
    case 0x7D: case 0x7E:  // Ice Lake client
    case 0x8C: case 0x8D:  // Tiger Lake
    case 0xA7:             // Rocket Lake (Cypress Cove, Ice Lake core)
      return true;
    default:
      return false;
  }
}
bool is_intel_spr_class(int model) {
  switch (model) {
    case 0x8F:             // Sapphire Rapids
    case 0xCF:             // Emerald Rapids
    case 0xAD: case 0xAE:  // Granite Rapids
      return true;
    default:
      return false;
  }
}

TopdownTable skylake(bool smt) {
  TopdownTable t;
  t.name = smt ? "topdown-skx-smt" : "topdown-skx";
  t.uarch = Uarch::kIntelSkylake;
  t.smt = smt;
  t.width = 4;
  t.pfm_pmu = "skx";
  t.source =
      "Linux tools/perf/pmu-events/arch/x86/skylakex/skx-metrics.json at kernel commit "
      "7051309819b29c8aa2d4f4dddcbe57025a2f861f (tma_frontend_bound, tma_bad_speculation, "
      "tma_retiring, tma_backend_bound, tma_fetch_latency, tma_branch_mispredicts, tma_memory_bound; "
      "core clocks as in perf's #core_wide form: any-thread clocks halved with SMT on)";
  if (!smt) {
    // SMT off: 8 general-purpose counters per core; instructions and cycles use fixed counters.
    // Level 1 with Fetch Latency and the mispredict split takes 7 of them; the memory split (5
    // more) is counted only where it fits beside level 1, which it does not on Skylake: level 1
    // is never multiplexed (its remainder, Backend, would mix time slices).
    t.groups.push_back({{ev::kInst, ev::kClk, ev::kIdqNotDelivered, ev::kUopsIssued, ev::kRetireSlots,
                         ev::kRecovery, ev::kIdqCycles0, ev::kBrMisp, ev::kMachineClears, ev::kTaskClock},
                        true});
    t.groups.push_back(
        {{ev::kStallsMemAny, ev::kBoundOnStores, ev::kStallsTotal, ev::kPorts1, ev::kPorts2}, false});
  } else {
    // SMT on: 4 general-purpose counters per thread. Level 1 needs the any-thread clocks
    // (fixed counter 1 with AnyThread) and any-thread recovery cycles.
    t.groups.push_back({{ev::kInst, ev::kClkAny, ev::kIdqNotDelivered, ev::kUopsIssued,
                         ev::kRetireSlots, ev::kRecoveryAny, ev::kTaskClock},
                        true});
    t.groups.push_back({{ev::kClk, ev::kIdqCycles0, ev::kBrMisp, ev::kMachineClears}, false});
    t.groups.push_back(
        {{ev::kStallsMemAny, ev::kBoundOnStores, ev::kStallsTotal, ev::kPorts1, ev::kPorts2}, false});
  }
  return t;
}

// Debian's libpfm4 4.13 encodes TOPDOWN:BACKEND_BOUND_SLOTS, BR_MISPREDICT_SLOTS and
// MEMORY_BOUND_SLOTS with event select 0x00 instead of 0xa4 (and BAD_SPEC_SLOTS as 0x400).
constexpr const char* kTopdownRawNote =
    "TOPDOWN.*_SLOTS counted by raw encoding (perf_raw::r02a4 BACKEND_BOUND_SLOTS, r08a4 "
    "BR_MISPREDICT_SLOTS, r10a4 MEMORY_BOUND_SLOTS: event 0xa4 as in perf's pipeline.json) because "
    "Debian's libpfm4 4.13 encodes those names with event select 0x00";

TopdownTable icelake() {
  TopdownTable t;
  t.name = "topdown-icx";
  t.uarch = Uarch::kIntelIceLake;
  t.width = 5;
  t.pfm_pmu = "icx";
  t.source =
      "Linux tools/perf/pmu-events/arch/x86/icelakex/icx-metrics.json at kernel commit "
      "06f609b3119876b42f19fdb690b10896d3c648e6 (tma_* level 1 and 2; the PERF_METRICS topdown-* "
      "slot counts replaced by the general-purpose events counting the same slots when absent)";
  t.raw_encodings = "TOPDOWN.BACKEND_BOUND_SLOTS counted as perf_raw::r02a4 (event 0xa4 umask 0x02, as in "
                    "perf's icelakex/pipeline.json) because Debian's libpfm4 4.13 encodes the name with "
                    "event select 0x00";
  // Level 1 (and Fetch Latency) as one group: instructions, cycles and slots on fixed counters
  // 0, 1 and 3, six of Ice Lake's 8 per-thread general-purpose counters, so that cycles still fit
  // when the NMI watchdog holds fixed counter 1. Level-2 groups join only where they fit beside
  // it (the counter agent never multiplexes a Top-Down level 1): the mispredict split does, the
  // memory split (5 more counters) does not.
  t.groups.push_back({{ev::kInst, ev::kClk, ev::kSlots, ev::kUopsRetiredSlots, ev::kIdqNotDelivered,
                       ev::kUopDropping, ev::kBackendSlots, ev::kClearsCount, ev::kIdqCycles0, ev::kTaskClock},
                      true});
  t.groups.push_back({{ev::kBrMisp, ev::kMachineClears}, false});
  t.groups.push_back(
      {{ev::kStallsMemAny, ev::kStallsTotal, ev::kBoundOnStores, ev::kPorts1, ev::kPorts2}, false});
  return t;
}

TopdownTable sapphire_rapids() {
  TopdownTable t;
  t.name = "topdown-spr";
  t.uarch = Uarch::kIntelSapphireRapids;
  t.width = 6;
  t.pfm_pmu = "spr";
  t.source =
      "Linux tools/perf/pmu-events/arch/x86/sapphirerapids/spr-metrics.json at kernel commit "
      "e80b500370e71b8cd7dd64be4080cee0a3e5068f (tma_* from the topdown-* slot counts; the "
      "TOPDOWN.*_SLOTS general-purpose events counting the same slots when those are absent)";
  t.raw_encodings = kTopdownRawNote;
  // Everything fits one group: 3 fixed counters (instructions, cycles, slots) + 8 general.
  t.groups.push_back({{ev::kInst, ev::kClk, ev::kSlots, ev::kUopsRetiredSlots, ev::kIdqNotDelivered,
                       ev::kUopDropping, ev::kBackendSlots, ev::kMemBoundSlots, ev::kBrMispSlots,
                       ev::kIdqCycles0, ev::kTaskClock},
                      true});
  return t;
}

TopdownTable zen(Uarch u) {
  TopdownTable t;
  const bool z5 = u == Uarch::kAmdZen5;
  t.name = z5 ? "topdown-zen5" : "topdown-zen4";
  t.uarch = u;
  t.width = z5 ? 8 : 6;
  // libpfm4 4.13 has no Zen 5 table; the Zen 5 events keep the Zen 4 names and codes.
  t.pfm_pmu = "amd64_fam19h_zen4";
  t.source = z5 ? "Linux tools/perf/pmu-events/arch/x86/amdzen5/pipeline.json at kernel commit "
                  "a9fe4ac7a3a25f0242406db7aa237850692fb29c (8 dispatch slots)"
                : "Linux tools/perf/pmu-events/arch/x86/amdzen4/pipeline.json at kernel commit "
                  "037dd1308c6dfa64edd2dfcd1b8177a3f484a124 (6 dispatch slots)";
  if (z5)
    t.raw_encodings = "bp_redirects.resync counted as perf_raw::r019f (PMCx09F umask 0x01, perf's "
                      "amdzen5 JSON) because Debian's libpfm4 4.13 has no Zen 5 table";
  // 6 general-purpose counters: the level-1 set exactly.
  t.groups.push_back({{ev::kAmdCycles, ev::kAmdFeNoOps, ev::kAmdBeStalls, ev::kAmdSmt,
                       ev::kAmdOpsDispatched, ev::kAmdRetOps, ev::kTaskClock},
                      true});
  t.groups.push_back({{ev::kAmdInst, z5 ? ev::kAmdFeNoOpsLat8 : ev::kAmdFeNoOpsLat, ev::kAmdBrMisp,
                       z5 ? ev::kAmdResyncsZen5 : ev::kAmdResyncs,
                       ev::kAmdNoRetireLoad, ev::kAmdNoRetireAll},
                      false});
  return t;
}

TopdownTable zen3() {
  TopdownTable t;
  t.name = "topdown-zen3-stalls";
  t.uarch = Uarch::kAmdZen3;
  t.method = Method::kStallRatios;
  t.width = 6;
  t.pfm_pmu = "amd64_fam19h_zen3";
  t.source =
      "AMD PPR for family 19h model 01h (PMCx0A9 op queue empty, as Linux's stalled-cycles-frontend "
      "for Zen 2 and later; PMCx0AE and PMCx0AF dispatch resource stalls); perf publishes no Zen 3 "
      "stall metric (amdzen3/recommended.json at kernel commit 57390019b68b83f96eb98f490367b9df1f2d77cb) "
      "and Zen 3 has no slot events, so stall-cycle ratios are reported";
  t.groups.push_back({{ev::kAmdCycles, ev::kAmdInst, ev::kAmdOpQueueEmpty, ev::kAmdDispStall1,
                       ev::kAmdDispStall2, ev::kTaskClock},
                      true});
  return t;
}

TopdownTable neoverse(Uarch u) {
  TopdownTable t;
  t.uarch = u;
  if (u == Uarch::kArmNeoverseN1) {
    t.name = "topdown-n1-stalls";
    t.method = Method::kStallRatios;
    t.width = 4;
    t.pfm_pmu = "arm_n1";
    t.source =
        "Linux tools/perf/pmu-events/arch/arm64/arm/neoverse-n1/metrics.json (frontend_stalled_cycles, "
        "backend_stalled_cycles, as in neoverse-v1/metrics.json at kernel commit "
        "918e37d50a2fde1370c45e28a89ad2da487f420a); N1 has no STALL_SLOT events";
    t.groups.push_back({{ev::kArmCycles, ev::kArmInst, ev::kArmStallFe, ev::kArmStallBe, ev::kTaskClock}, true});
    return t;
  }
  const bool v2 = u == Uarch::kArmNeoverseV2;
  t.name = v2 ? "topdown-v2" : "topdown-v1";
  t.width = 8;
  t.pfm_pmu = v2 ? "arm_v2" : "arm_v1";
  t.source = v2 ? "Arm Neoverse V2 Telemetry Specification level-1 formulas (as quoted in Arm's "
                  "learning path topdown-compare/1b-arm); Linux neoverse-n2-v2/metrics.json at kernel "
                  "commit 0df82189bc42037678fa590a77ed0116f428c90d has no mispredict terms"
                : "Linux tools/perf/pmu-events/arch/arm64/arm/neoverse-v1/metrics.json at kernel commit "
                  "918e37d50a2fde1370c45e28a89ad2da487f420a with arch/arm64/sbsa.json (backend_bound, "
                  "retiring)";
  // 6 general-purpose counters plus the cycle counter.
  t.groups.push_back({{ev::kArmCycles, ev::kArmStallSlot, ev::kArmStallSlotFe, ev::kArmStallSlotBe,
                       ev::kArmOpSpec, ev::kArmOpRetired, ev::kArmBrMisPred, ev::kTaskClock},
                      true});
  t.groups.push_back({{ev::kArmInst}, false});
  return t;
}

}  // namespace

UarchInfo classify_cpu(const CpuId& cpu) {
  UarchInfo info;
  if (cpu.vendor == "GenuineIntel" && cpu.family == 6) {
    const std::string fm = cpu_words(cpu);
    if (is_intel_skylake_class(cpu.model)) {
      info = {Uarch::kIntelSkylake, "Intel Skylake/Cascade Lake class (before Ice Lake)", "skx", fm};
    } else if (is_intel_icelake_class(cpu.model)) {
      info = {Uarch::kIntelIceLake, "Intel Ice Lake class", "icx", fm};
    } else if (is_intel_spr_class(cpu.model)) {
      info = {Uarch::kIntelSapphireRapids, "Intel Sapphire Rapids class", "spr", fm};
    } else {
      info.reason = fm + ": no Top-Down table for this model";
    }
    return info;
  }
  if (cpu.vendor == "AuthenticAMD") {
    const std::string fm = cpu_words(cpu);
    if (cpu.family == 0x19) {
      const int m = cpu.model;
      const bool zen4 = (m >= 0x10 && m <= 0x1F) || (m >= 0x60 && m <= 0x7F) || (m >= 0xA0 && m <= 0xAF);
      if (zen4) {
        info = {Uarch::kAmdZen4, "AMD Zen 4", "amd64_fam19h_zen4", fm};
      } else {
        info = {Uarch::kAmdZen3, "AMD Zen 3 (stall-cycle ratios only)", "amd64_fam19h_zen3", fm};
      }
      return info;
    }
    if (cpu.family == 0x1A) {
      info = {Uarch::kAmdZen5, "AMD Zen 5", "amd64_fam1ah_zen5", fm};
      return info;
    }
    info.reason = fm + ": no Top-Down table (Zen 2 and older have no slot events)";
    return info;
  }
  if (cpu.arm_implementer >= 0) {
    const std::string midr = cpu_words(cpu);
    if (cpu.arm_implementer == 0x41) {
      switch (cpu.arm_part) {
        case 0xd0c: return {Uarch::kArmNeoverseN1, "Arm Neoverse N1 (stall-cycle ratios only)", "arm_n1", midr};
        case 0xd40: return {Uarch::kArmNeoverseV1, "Arm Neoverse V1", "arm_v1", midr};
        case 0xd4f: return {Uarch::kArmNeoverseV2, "Arm Neoverse V2", "arm_v2", midr};
        default: break;
      }
    }
    info.reason = midr + ": no Top-Down table for this core";
    return info;
  }
  info.reason = cpu_words(cpu) + ": no Top-Down table";
  return info;
}

TopdownTable table_for(const CpuId& cpu) {
  switch (classify_cpu(cpu).uarch) {
    case Uarch::kIntelSkylake: return skylake(cpu.smt);
    case Uarch::kIntelIceLake: return icelake();
    case Uarch::kIntelSapphireRapids: return sapphire_rapids();
    case Uarch::kAmdZen3: return zen3();
    case Uarch::kAmdZen4: return zen(Uarch::kAmdZen4);
    case Uarch::kAmdZen5: return zen(Uarch::kAmdZen5);
    case Uarch::kArmNeoverseN1:
    case Uarch::kArmNeoverseV1:
    case Uarch::kArmNeoverseV2: return neoverse(classify_cpu(cpu).uarch);
    case Uarch::kUnknown: break;
  }
  return {};
}

std::vector<TopdownTable> all_tables() {
  return {skylake(false), skylake(true), icelake(), sapphire_rapids(), zen3(), zen(Uarch::kAmdZen4),
          zen(Uarch::kAmdZen5), neoverse(Uarch::kArmNeoverseN1), neoverse(Uarch::kArmNeoverseV1),
          neoverse(Uarch::kArmNeoverseV2)};
}

TopdownTable table_by_name(std::string_view name) {
  // A "-l1" suffix (topdown-l1 plans) names the same formulas with fewer groups.
  std::string base(name);
  if (base.size() > 3 && base.compare(base.size() - 3, 3, "-l1") == 0) base.resize(base.size() - 3);
  for (auto& t : all_tables())
    if (t.name == base) return t;
  return {};
}

const std::vector<std::string>& kernel_topdown_events() {
  static const std::vector<std::string> names = {
      "slots",           "topdown-retiring",  "topdown-bad-spec",      "topdown-fe-bound",
      "topdown-be-bound", "topdown-heavy-ops", "topdown-br-mispredict", "topdown-fetch-lat",
      "topdown-mem-bound"};
  return names;
}

namespace {
// PMUv3 common event numbers (Arm ARM, common architectural and microarchitectural events; the
// EventCodes of perf's arch/arm64/common-and-microarch.json, checked by perf_encoding_test).
struct ArmEvent {
  const char* name;
  int number;
};
constexpr ArmEvent kArmEvents[] = {
    {"CPU_CYCLES", 0x11}, {"INST_RETIRED", 0x08},   {"BR_MIS_PRED", 0x10},        {"STALL_FRONTEND", 0x23},
    {"STALL_BACKEND", 0x24}, {"OP_RETIRED", 0x3A}, {"OP_SPEC", 0x3B},           {"STALL_SLOT", 0x3F},
    {"STALL_SLOT_BACKEND", 0x3D}, {"STALL_SLOT_FRONTEND", 0x3E}};
}  // namespace

const std::vector<std::string>& arm_documented_events() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& e : kArmEvents) v.emplace_back(e.name);
    return v;
  }();
  return names;
}

int arm_event_number(std::string_view name) {
  for (const auto& e : kArmEvents)
    if (name == e.name) return e.number;
  return -1;
}

}  // namespace hpcsens::topdown
