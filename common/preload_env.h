#pragma once
// The contract between `hpcsens run` (which sets these in the ranks' environment only) and
// libhpcsens_preload.so (which reads them once at MPI_Init). Nothing else passes between them.
namespace hpcsens::env {

inline constexpr const char* kOutDir = "HPCSENS_OUT";          // directory for the record
inline constexpr const char* kRunId = "HPCSENS_RUN_ID";        // record file: <out>/<run_id>.json
inline constexpr const char* kEvents = "HPCSENS_EVENTS";       // --events spec ("default" if unset)
inline constexpr const char* kCommand = "HPCSENS_COMMAND";     // JSON array: the user's command line
inline constexpr const char* kLauncher = "HPCSENS_LAUNCHER";   // launcher kind detected by the CLI
inline constexpr const char* kStartUtc = "HPCSENS_START_UTC";  // ISO 8601 start time
inline constexpr const char* kPreload = "LD_PRELOAD";
// "1": the preload keeps the call-site table (`hpcsens run --callsites`, preload/callsites.h).
inline constexpr const char* kCallSites = "HPCSENS_CALLSITES";
// 1..8: frames per call site (`hpcsens run --stack-depth K`, mpiP's -k; default 1).
inline constexpr const char* kStackDepth = "HPCSENS_STACK_DEPTH";
// The network-delay knob (sweep knobs.network), one run at a time: added latency per message
// (microseconds) and the bandwidth of an added link (GB/s; each byte costs 1/B more). Unset or 0:
// off. Only ever in one run's environment, so nothing outlives the run (a killed sweep included).
inline constexpr const char* kNetLatencyUs = "HPCSENS_NET_LATENCY_US";
inline constexpr const char* kNetBandwidthGbs = "HPCSENS_NET_BANDWIDTH_GBS";
// Their plausible range (the sweep spec refuses values outside it; the preload ignores them).
inline constexpr double kNetMaxLatencyUs = 1e6;                                  // 1 s per message
inline constexpr double kNetMinBandwidthGbs = 1e-3, kNetMaxBandwidthGbs = 1e6;  // 1 MB/s .. 1 PB/s

// Record file name inside the out dir; partial per-rank files use "<run_id>.rank<N>.partial.json".
inline constexpr const char* kRecordSuffix = ".json";

}  // namespace hpcsens::env
