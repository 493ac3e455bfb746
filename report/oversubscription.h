#pragma once
// Whether a run had more ranks than CPUs: then waiting is the scheduler's, MPI time and compute
// time include time spent off the CPU, and an imbalance between ranks says nothing about the code.
// Pure function of the per-host totals the scan collects (report/run_scan.h, CpuTotals).
#include <string>

#include "report/run_scan.h"

namespace hpcsens::report {

// "" when the record shows no oversubscription (or has no "cpu" objects); else what shows it:
// "host n1: 40 ranks on 2 online CPUs" (the most crowded host), or, where every host had CPUs
// enough, "7 of 8 ranks were on a CPU for less than half of their time outside I/O".
std::string oversubscription(const CpuTotals& cpu);

}  // namespace hpcsens::report
