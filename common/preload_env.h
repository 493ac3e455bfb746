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

// Record file name inside the out dir; partial per-rank files use "<run_id>.rank<N>.partial.json".
inline constexpr const char* kRecordSuffix = ".json";

}  // namespace hpcsens::env
