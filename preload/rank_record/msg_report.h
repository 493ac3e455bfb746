#pragma once
// The record fields added in schema_minor 2 (docs/record-format.md), from the per-thread slots:
// I/O per class, message-size histograms, partners, regions, the main thread's MPI time; and the
// per-rank byte budget. Runs once at finalize (allocation is fine here, not on the hot path).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "preload/account/accounting.h"
#include "preload/rank_record/regions.h"

namespace hpcsens::preload {

struct MergedMessages {
  std::unique_ptr<MsgHistograms> hist = std::make_unique<MsgHistograms>();
  std::vector<PartnerEntry> partners;  // sorted by bytes descending, then rank ascending
  std::uint64_t untracked_bytes = 0, untracked_messages = 0;
};

// Sums the histograms and partner tables of `slots`.
MergedMessages merge_messages(const ThreadCounts* const slots[], int n);

// "io": {"posix"|"stdio"|"mpiio": {calls, seconds, bytes}} for the classes used.
nlohmann::json io_classes(const CallTotals& totals, double seconds_per_tick);
// "msg_sizes": call name -> log2 bucket counts, trailing zero buckets omitted.
nlohmann::json msg_sizes(const MsgHistograms& hist);
// Adds "partners" (top kReportedPartners) and "partners_other" to `rank` when there was traffic.
void add_partners(const MergedMessages& m, nlohmann::json& rank);
nlohmann::json regions_json(const std::vector<RegionResult>& regions);
// MPI seconds of one thread's calls (I/O excluded).
double mpi_seconds(const CallTotals& calls, double seconds_per_tick);

// Shrinks `rank` to at most `budget` bytes of compact JSON by dropping, in order, timeline, callsites, partners,
// message-size histograms, regions and the per-call tables; sets "truncated": true when anything
// was dropped. Returns the text.
std::string fit_to_budget(nlohmann::json& rank, std::size_t budget);

}  // namespace hpcsens::preload
