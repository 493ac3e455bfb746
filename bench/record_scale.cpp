// Records at scale (issue 11 item 7): writes a synthetic N-rank run record (default 1,000,000)
// through the preload's streaming writer (preload/record_stream.h, the code rank 0 runs at
// MPI_Finalize), then reads and reports it with `hpcsens report` (text, summarised view). Prints
// the size, the times and the peak resident memory of the writer and of the report.
// Usage: bench_record_scale [NRANKS] [DIR] [keep]   (the record is removed afterwards unless "keep")
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "preload/rank_record/record_stream.h"

namespace {

using hpcsens::preload::RankHeader;
using hpcsens::preload::RecordStream;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

long vmhwm_kib() {
  FILE* f = std::fopen("/proc/self/status", "r");
  char line[256];
  long kib = -1;
  while (f && std::fgets(line, sizeof line, f))
    if (std::sscanf(line, "VmHWM: %ld", &kib) == 1) break;
  if (f) std::fclose(f);
  return kib;
}

// A rank object like a real one of a stencil code: a few calls, I/O, histograms, 6 partners, 2
// regions.
std::string rank_text(int rank, int n) {
  using nlohmann::json;
  json calls = json::object();
  for (const char* c : {"MPI_Allreduce", "MPI_Irecv", "MPI_Isend", "MPI_Waitall", "MPI_Barrier"})
    calls[c] = {{"count", 1000}, {"seconds", 0.25 + rank % 7 * 0.01}, {"bytes", 8000000}};
  json partners = json::array();
  for (int d : {1, -1, 1000, -1000, 1000000 - 1, 2})
    partners.push_back({{"rank", ((rank + d) % n + n) % n}, {"bytes", 4000000}, {"messages", 500}});
  json r = {{"rank", rank}, {"host", "node" + std::to_string(rank / 128)}, {"pid", 1000 + rank % 128},
            {"t0", 1.0}, {"t1", 1.1}, {"t2", 101.1}, {"t3", 101.2}, {"wall_s", 100.0},
            {"mpi_s", 1.5}, {"io_s", 0.5}, {"compute_s", 98.0}, {"io_bytes_read", 1048576},
            {"io_bytes_written", 2097152}, {"mpi_calls", calls},
            {"io_calls", {{"fwrite", {{"count", 10}, {"seconds", 0.5}, {"bytes", 2097152}}}}},
            {"counters", {{"perf::TASK-CLOCK", 1e11}}}, {"counters_status", "ok"},
            {"event_set", "default"}, {"multiplexed", false}, {"counter_running_fraction", json::object()},
            {"complete", true},
            {"io", {{"stdio", {{"calls", 10}, {"seconds", 0.5}, {"bytes", 2097152}}}}},
            {"msg_sizes", {{"MPI_Isend", {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 500}},
                           {"MPI_Allreduce", {0, 0, 0, 0, 1000}}}},
            {"partners", partners},
            {"partners_other", {{"ranks", 0}, {"bytes", 0}, {"messages", 0}}},
            {"regions", {{"solve", {{"count", 100}, {"wall_s", 90.0}, {"mpi_s", 1.0}, {"io_s", 0.0}}},
                         {"pcontrol:1", {{"count", 1}, {"wall_s", 95.0}, {"mpi_s", 1.2}, {"io_s", 0.1}}}}},
            {"mpi_s_main_thread", 1.5}};
  return r.dump();
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 1000000;
  const std::string dir = argc > 2 ? argv[2] : "/tmp";
  auto t0 = std::chrono::steady_clock::now();
  RecordStream stream;
  std::string err = stream.open(dir, "hpcsens-scale-" + std::to_string(getpid()));
  hpcsens::record::RankRecord r;
  r.host = "node0";
  r.t0 = 1.0, r.t1 = 1.1, r.t2 = 101.1, r.t3 = 101.2, r.wall_s = 100.0;
  for (int i = 0; i < n && err.empty(); ++i) {
    const std::string text = rank_text(i, n);
    r.rank = i;
    r.compute_s = 98.0 - (i % 7) * 0.01;
    r.host = "node" + std::to_string(i / 128);
    err = stream.add(hpcsens::preload::header_of(r, text.size()), text);
  }
  hpcsens::preload::JobInfo job{{"mpirun", "-np", std::to_string(n), "./app"}, "openmpi", "bench", "2026-11-24T00:00:00Z", "app"};
  if (err.empty()) err = stream.finish(job, {{"preload", {{"note", "synthetic (bench_record_scale)"}}}});
  if (!err.empty()) {
    std::fprintf(stderr, "bench_record_scale: %s\n", err.c_str());
    return 1;
  }
  const std::string path = stream.path();  // the fresh name it was written under
  const double write_s = seconds_since(t0);
  const double mib = static_cast<double>(std::filesystem::file_size(path)) / (1 << 20);
  std::printf("ranks %d: record %.1f MiB written in %.2f s (incl. building each rank's JSON), "
              "writer peak RSS %.1f MiB\n", n, mib, write_s, vmhwm_kib() / 1024.0);
  std::fflush(stdout);
  t0 = std::chrono::steady_clock::now();
  const std::string cmd = std::string(HPCSENS_BIN) + " report " + path + " > " + path + ".txt";
  const int st = std::system(cmd.c_str());
  const double report_s = seconds_since(t0);
  rusage ru{};
  getrusage(RUSAGE_CHILDREN, &ru);
  auto secs = [](const timeval& tv) { return static_cast<double>(tv.tv_sec) + 1e-6 * static_cast<double>(tv.tv_usec); };
  std::printf("hpcsens report (read + text): exit %d in %.2f s wall (%.2f s user, %.2f s sys), peak RSS %.1f MiB, "
              "%.1f KiB of text\n",
              WIFEXITED(st) ? WEXITSTATUS(st) : -1, report_s, secs(ru.ru_utime), secs(ru.ru_stime), ru.ru_maxrss / 1024.0,
              static_cast<double>(std::filesystem::file_size(path + ".txt")) / 1024);
  if (argc <= 3 || std::string(argv[3]) != "keep") std::filesystem::remove(path);
  else std::printf("record kept: %s\n", path.c_str());
  std::filesystem::remove(path + ".txt");
  return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}
