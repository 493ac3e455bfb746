#pragma once
// The schema_minor 2 fields of a rank object (io, msg_sizes, partners, partners_other, regions,
// truncated, cpu, memory; docs/record-format.md) summed over ranks while the record is scanned, so the
// report's measurement section needs no second pass and no per-rank memory.
#include <queue>
#include <string>
#include <string_view>
#include <vector>

#include "report/od_values.h"
#include "report/run_scan.h"

namespace hpcsens::report {

class MeasureScan {
 public:
  // Adds `v` when `key` is one of the fields above and returns true; false for any other key.
  // A malformed field throws InputError naming `file`, the rank (`where`) and the field.
  bool add(std::string_view key, od::value v, const std::string& file, const std::string& where);
  // The rank's host (for the CPUs per host of its "cpu" object).
  void host(std::string_view name) { host_ = name; }
  // Ends a rank: its partner list is attributed to `rank` (keys come in any order); busy_s, its
  // time outside I/O (wall - io), is what its CPU time is compared with (< 0: not known).
  void end_rank(std::int64_t rank, double busy_s = -1);
  MeasureTotals finish();

 private:
  struct Heavier {
    bool operator()(const PartnerPair& a, const PartnerPair& b) const { return a.bytes > b.bytes; }
  };
  void add_io(od::value v);
  void add_sizes(od::value v);
  void add_partners(od::value v);
  void add_other(od::value v);
  void add_regions(od::value v);
  void add_cpu(od::value v);
  void add_memory(od::value v);

  MeasureTotals t_;
  std::vector<PartnerPair> pending_;
  std::string host_;
  std::int64_t online_ = 0;
  double used_s_ = -1;  // this rank's CPU time (-1: no "cpu" object)
  double run_delay_s_ = -1;  // its time waiting for a CPU (-1: not in the record)
  std::int64_t peak_kib_ = -1, total_kib_ = -1;  // its "memory" object (-1: not in the record)
  std::priority_queue<PartnerPair, std::vector<PartnerPair>, Heavier> top_;  // min-heap of the largest
};

}  // namespace hpcsens::report
