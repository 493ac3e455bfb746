#pragma once
// Inputs for the report tests, made by hand and labelled as such: a small job with MPI calls,
// counter values (Skylake-SP Top-Down counts constructed for a known split, not measured) and
// the per-rank fields of record schema_minor 2; a 100,000-rank record written as text; a mix.
#include <fmt/core.h>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "mpi/imbalance.h"
#include "mpi/timing_bounds.h"
#include "record/run_record.h"

namespace hpcsens::testing {

// Constructed counts: Frontend 10 %, Retiring 40 %, Backend 50 % (Memory-heavy) on every rank.
inline std::map<std::string, double> skx_counts() {
  return {{"INST_RETIRED:ANY_P", 1.0e9},          {"CPU_CLK_UNHALTED:THREAD_P", 1.0e9},
          {"IDQ_UOPS_NOT_DELIVERED:CORE", 0.4e9}, {"UOPS_ISSUED:ANY", 1.6e9},
          {"UOPS_RETIRED:RETIRE_SLOTS", 1.6e9},   {"INT_MISC:RECOVERY_CYCLES", 0},
          {"IDQ_UOPS_NOT_DELIVERED:CYCLES_0_UOPS_DELIV_CORE", 0.1e9},
          {"BR_MISP_RETIRED:ALL_BRANCHES", 0},   {"MACHINE_CLEARS:COUNT", 0},
          {"CYCLE_ACTIVITY:STALLS_MEM_ANY", 0.8e9}, {"EXE_ACTIVITY:BOUND_ON_STORES", 0},
          {"CYCLE_ACTIVITY:STALLS_TOTAL", 1e9},  {"EXE_ACTIVITY:1_PORTS_UTIL", 0},
          {"EXE_ACTIVITY:2_PORTS_UTIL", 0},      {"perf::TASK-CLOCK", 5e8}};
}

// `n` ranks on two hosts; rank 3 computes the longest. Times are chosen with many digits so a
// rounded output would not read back the same.
inline record::RunRecord small_job(int n, bool topdown) {
  record::RunRecord rec;
  rec.job.command = {"mpirun", "-np", std::to_string(n), "./solver", "--input", "case.nml"};
  rec.job.nranks = n;
  rec.job.launcher = "openmpi";
  rec.job.mpi_library = "Open MPI v4.1.4";
  rec.job.hosts = {"node001", "node002"};
  rec.job.start_utc = "2026-11-24T00:00:00Z";
  for (int i = 0; i < n; ++i) {
    record::RankRecord r;
    r.rank = i;
    r.host = i < n / 2 ? "node001" : "node002";
    r.pid = 4000 + i;
    r.t0 = 100.0 + 0.001 * i;
    r.t1 = r.t0 + 0.0123456789;
    r.wall_s = 10.123456789012345;
    r.t2 = r.t1 + r.wall_s;
    r.t3 = r.t2 + 0.0111;
    r.io_s = 0.1 + 0.01 * i;
    r.compute_s = i == 3 ? 9.0 + 1.0 / 3.0 : 6.0 + 0.1 * i + 1e-13 * i;
    r.mpi_s = r.wall_s - r.compute_s - r.io_s;
    r.io_bytes_written = 1048576u * static_cast<unsigned>(i + 1);
    r.mpi_calls["MPI_Allreduce"] = {1000, r.mpi_s * 0.7, 8000};
    r.mpi_calls["MPI_Isend"] = {500, r.mpi_s * 0.1, 4096000};
    r.mpi_calls["MPI_Waitall"] = {250, r.mpi_s * 0.2, 0};
    r.io_calls["write"] = {10, r.io_s, r.io_bytes_written};
    if (topdown) {
      r.event_set = "topdown-skx";
      r.counters = skx_counts();
    } else {
      r.event_set = "default";
      r.counters = {{"PAPI_TOT_INS", 2.5e10 + i}, {"perf::CONTEXT-SWITCHES", 12.0 + i}};
    }
    rec.ranks.push_back(r);
  }
  mpi::fill_timing(rec);
  mpi::fill_imbalance(rec);
  return rec;
}

// The pre-agreed schema_minor 2 per-rank fields (docs/record-format.md), as a ring exchange.
inline nlohmann::json with_rank_extras(nlohmann::json j) {
  j["schema_minor"] = 2;
  const int n = static_cast<int>(j["ranks"].size());
  for (auto& r : j["ranks"]) {
    const int k = r["rank"].get<int>();
    r["partners"] = {{{"rank", (k + 1) % n}, {"bytes", 4096000}, {"messages", 500}},
                     {{"rank", (k + n - 1) % n}, {"bytes", 1024 * (k + 1)}, {"messages", 2}}};
    r["partners_other"] = {{"ranks", 0}, {"bytes", 0}, {"messages", 0}};
    r["msg_sizes"] = {{"MPI_Isend", {0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 500}}, {"MPI_Allreduce", {0, 0, 0, 0, 1000}}};
    r["regions"] = {{"solve", {{"count", 10}, {"wall_s", 8.5}, {"mpi_s", 2.0}, {"io_s", 0.0}}},
                    {"checkpoint", {{"count", 1}, {"wall_s", 1.0}, {"mpi_s", 0.1}, {"io_s", 0.8}}}};
    r["io"] = {{"posix", {{"calls", 10}, {"seconds", 0.05}, {"bytes", 1048576}}},
               {"stdio", {{"calls", 4}, {"seconds", 0.01}, {"bytes", 200}}}};
  }
  return j;
}

// A 100,000-rank record written directly as text (nlohmann would take seconds to build it).
inline void write_big_record(const std::string& path, int n) {
  std::ofstream out(path);
  out << R"({"schema":"hpcsens.run.v1","emulated":true,"counters_status":"ok","complete":true,)"
      << R"("job":{"command":["mpirun","./big"],"nranks":)" << n
      << R"(,"launcher":"emulated","mpi_library":"","hosts":["n0"],"start_utc":""},"config":{},)"
      << R"("timing":{"job_s":10.02,"barrier_s":0.02,"method":"mccalpin-2019-barrier"},"ranks":[)";
  for (int i = 0; i < n; ++i) {
    const double mpi = 2.0 + 0.5 * ((i * 7919) % 1000) / 1000.0 - (i % 997 == 0 ? 1.5 : 0.0);
    out << (i ? "," : "")
        << fmt::format(R"({{"rank":{},"host":"node{:05d}","wall_s":10.0,"mpi_s":{},"io_s":0.1,"compute_s":{},)"
                       R"("mpi_calls":{{"MPI_Allreduce":{{"count":1000,"seconds":{},"bytes":8000}},)"
                       R"("MPI_Waitall":{{"count":5000,"seconds":{},"bytes":0}}}},)"
                       R"("counters":{{"PAPI_TOT_INS":2.5e10,"PAPI_TOT_CYC":2.0e10}},"event_set":"default"}})",
                       i, i / 64, mpi, 10.0 - mpi - 0.1, mpi * 0.6, mpi * 0.4);
  }
  out << "]}\n";
}

// The mix JSON of design.md (`predict --mix ... --format json`), by hand.
inline nlohmann::json mix_fixture() {
  auto app = [](const char* name, double t, double s, const char* verdict) {
    return nlohmann::json{{"name", name}, {"predicted_s", t}, {"speedup", s}, {"verdict", verdict}};
  };
  return {{"schema", "hpcsens.mix.v1"},
          {"emulated", true},
          {"systems",
           {{{"name", "fast-cpu"}, {"speedup", 1.31}, {"speedup_low", 1.2}, {"speedup_high", 1.4},
             {"applications", {app("cfd", 80.0, 1.5, "ok"), app("md", 40.0, 1.1, "caution")}}},
            {{"name", "big-mem"}, {"speedup", 1.12}, {"speedup_low", 0.95}, {"speedup_high", 1.3},
             {"applications", {app("cfd", 95.0, 1.26, "ok"), app("md", 47.0, 0.98, "unreliable")}}}}}};
}

}  // namespace hpcsens::testing
