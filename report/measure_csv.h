#pragma once
// Tidy CSV tables of the per-rank measurement fields (docs/record-format.md, schema_minor 2), one
// value per cell, read one rank at a time from the record's scan:
//   partners   rank,partner,bytes,messages      (partner empty: partners beyond the 64 largest)
//   msg_sizes  rank,call,bucket,size_min_bytes,size_max_bytes,messages  (non-empty buckets)
//   regions    rank,region,count,wall_s,mpi_s,io_s
#include <string>

#include "report/run_scan.h"

namespace hpcsens::report {

std::string partners_csv(const RunScan& scan);
std::string msg_sizes_csv(const RunScan& scan);
std::string regions_csv(const RunScan& scan);

}  // namespace hpcsens::report
