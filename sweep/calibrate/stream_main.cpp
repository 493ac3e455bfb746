// hpcsens-stream: the sweep's calibrator. Run through the job's own launcher so it uses the same
// ranks and nodes; prints one JSON line (rank 0) with the sustained STREAM Triad bandwidth summed
// over ranks and, optionally, the achieved core clock. `--latency-only` runs a serial pointer
// chase (idle latency) without MPI; `--network` measures the network between the ranks instead.
#include <mpi.h>
#include <time.h>

#include "netcal.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "sweep/calibrate/clock_probe.h"

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The detail carries strerror text: keep it a valid JSON string.
std::string json_safe(const std::string& s) {
  std::string o;
  for (char ch : s) o += (ch == '"' || ch == '\\' || static_cast<unsigned char>(ch) < 0x20) ? ' ' : ch;
  return o;
}

// Random cyclic permutation: every load depends on the previous one and defeats the prefetcher.
double pointer_chase_ns(std::size_t bytes) {
  const std::size_t n = std::max<std::size_t>(bytes / sizeof(std::size_t), 1024);
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin() + 1, order.end(), std::mt19937_64(12345));
  std::vector<std::size_t> next(n);
  for (std::size_t i = 0; i < n; ++i) next[order[i]] = order[(i + 1) % n];
  const std::size_t steps = std::min<std::size_t>(n * 2, 20'000'000);
  std::size_t p = 0;
  for (std::size_t i = 0; i < n; ++i) p = next[p];  // warm the TLB and page tables
  const double t0 = now_s();
  for (std::size_t i = 0; i < steps; ++i) p = next[p];
  const double dt = now_s() - t0;
  if (p == n) std::abort();  // keeps p alive
  return dt / double(steps) * 1e9;
}

struct Args {
  std::size_t array_bytes = 256u << 20;  // aggregate size of one array over all ranks
  int ntimes = 10;
  bool clock = false;
  bool latency_only = false;
  bool network = false;  // ping-pong and streaming bandwidth instead of STREAM (netcal.h)
  std::size_t latency_bytes = 256u << 20;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "hpcsens-stream: %s needs a value\n", s.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (s == "--array-bytes") a.array_bytes = std::stoull(value());
    else if (s == "--ntimes") a.ntimes = std::max(2, std::stoi(value()));
    else if (s == "--clock") a.clock = true;
    else if (s == "--latency-only") a.latency_only = true;
    else if (s == "--network") a.network = true;
    else if (s == "--latency-bytes") a.latency_bytes = std::stoull(value());
    else {
      std::fprintf(stderr, "hpcsens-stream: unknown option %s\n", s.c_str());
      std::exit(2);
    }
  }
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse(argc, argv);
  if (a.latency_only) {
    std::printf("{\"lat_ns\": %.3f, \"latency_bytes\": %zu}\n", pointer_chase_ns(a.latency_bytes),
                a.latency_bytes);
    return 0;
  }
  MPI_Init(&argc, &argv);
  if (a.network) {
    hpcsens::sweep::run_network_calibration(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
  }
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::size_t n = std::max<std::size_t>(a.array_bytes / sizeof(double) / size, 1024);
  std::vector<double> va(n, 1.0), vb(n, 2.0), vc(n, 0.5);
  const double q = 3.0;
  double best = 1e300;
  for (int k = 0; k < a.ntimes; ++k) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    double* __restrict pa = va.data();
    const double* __restrict pb = vb.data();
    const double* __restrict pc = vc.data();
    for (std::size_t i = 0; i < n; ++i) pa[i] = pb[i] + q * pc[i];
    MPI_Barrier(MPI_COMM_WORLD);
    const double dt = MPI_Wtime() - t0;
    if (k > 0) best = std::min(best, dt);  // the first pass pays page faults
  }
  double local_check = va[n / 2], check = 0;
  MPI_Reduce(&local_check, &check, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  double ghz = 0, ghz_min = 0, ghz_max = 0;
  int by_cycles = 0;
  hpcsens::sweep::ClockReading mine;
  if (a.clock) {
    const char* off = std::getenv("HPCSENS_CLOCK_COUNTER");
    mine = hpcsens::sweep::measure_thread_clock(!(off && std::strcmp(off, "off") == 0));
    const int counted = mine.method == "cycles";
    MPI_Reduce(&mine.ghz, &ghz, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&mine.ghz, &ghz_min, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(&mine.ghz, &ghz_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&counted, &by_cycles, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    ghz /= size;
  }
  if (rank == 0) {
    const double bytes = 3.0 * sizeof(double) * double(n) * size;  // STREAM's Triad count
    std::printf("{\"triad_gbs\": %.4f, \"ranks\": %d, \"array_bytes_per_rank\": %zu, \"best_s\": %.6g, "
                "\"check\": %.3f",
                bytes / best / 1e9, size, n * sizeof(double), best, check / size);
    if (a.clock) {
      // Rank 0's method and detail stand for all when every rank used the same one; else "mixed".
      const bool same = by_cycles == 0 || by_cycles == size;
      std::printf(", \"clock_ghz\": %.4f, \"clock_ghz_min\": %.4f, \"clock_ghz_max\": %.4f, "
                  "\"clock_method\": \"%s\", \"clock_method_detail\": \"%s (%d of %d ranks by cycles)\"",
                  ghz, ghz_min, ghz_max, same ? mine.method.c_str() : "mixed", json_safe(mine.detail).c_str(),
                  by_cycles, size);
    }
    std::printf("}\n");
    std::fflush(stdout);
  }
  MPI_Finalize();
  return 0;
}
