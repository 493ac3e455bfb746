#include "netcal.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace hpcsens::sweep {
namespace {

constexpr int kTrips = 2000, kWarmTrips = 200;
constexpr int kStreamMessages = 32;
constexpr int kStreamBytes = 1 << 20;  // 1 MiB: past every eager limit, a bandwidth, not a latency

// The first rank after 0 on rank 0's host, and the first on another host (-1: none).
void pick_partners(MPI_Comm comm, int rank, int size, int partner[2]) {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  MPI_Get_processor_name(name, &len);
  std::vector<char> all(rank == 0 ? std::size_t(size) * MPI_MAX_PROCESSOR_NAME : 1);
  MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, comm);
  partner[0] = partner[1] = -1;
  if (rank == 0)
    for (int r = 1; r < size; ++r) {
      const bool same = std::strncmp(&all[std::size_t(r) * MPI_MAX_PROCESSOR_NAME], name, MPI_MAX_PROCESSOR_NAME) == 0;
      int& slot = partner[same ? 0 : 1];
      if (slot < 0) slot = r;
    }
  MPI_Bcast(partner, 2, MPI_INT, 0, comm);
}

// Half the median round trip of a 0-byte message, in microseconds (rank 0's view).
double pingpong_us(MPI_Comm comm, int rank, int peer) {
  std::vector<double> trips;
  char b = 0;
  for (int i = 0; i < kWarmTrips + kTrips; ++i) {
    const double t = MPI_Wtime();
    if (rank == 0) {
      MPI_Send(&b, 0, MPI_CHAR, peer, 1, comm);
      MPI_Recv(&b, 0, MPI_CHAR, peer, 1, comm, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(&b, 0, MPI_CHAR, 0, 1, comm, MPI_STATUS_IGNORE);
      MPI_Send(&b, 0, MPI_CHAR, 0, 1, comm);
    }
    if (i >= kWarmTrips) trips.push_back(MPI_Wtime() - t);
  }
  std::nth_element(trips.begin(), trips.begin() + trips.size() / 2, trips.end());
  return trips[trips.size() / 2] / 2 * 1e6;
}

// GB/s of a window of 1 MiB messages from rank 0 to `peer`, acknowledged by a 0-byte reply;
// the best of three windows.
double stream_gbs(MPI_Comm comm, int rank, int peer) {
  std::vector<char> buf(kStreamBytes, 1);
  std::vector<MPI_Request> req(kStreamMessages);
  double best = 0;
  for (int rep = 0; rep < 3; ++rep) {
    const double t = MPI_Wtime();
    for (int m = 0; m < kStreamMessages; ++m) {
      if (rank == 0) MPI_Isend(buf.data(), kStreamBytes, MPI_CHAR, peer, 2, comm, &req[m]);
      else MPI_Irecv(buf.data(), kStreamBytes, MPI_CHAR, 0, 2, comm, &req[m]);
    }
    MPI_Waitall(kStreamMessages, req.data(), MPI_STATUSES_IGNORE);
    char b = 0;
    if (rank == 0) MPI_Recv(&b, 0, MPI_CHAR, peer, 3, comm, MPI_STATUS_IGNORE);
    else MPI_Send(&b, 0, MPI_CHAR, 0, 3, comm);
    best = std::max(best, double(kStreamBytes) * kStreamMessages / (MPI_Wtime() - t) / 1e9);
  }
  return best;
}

}  // namespace

void run_network_calibration(MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int partner[2];
  pick_partners(comm, rank, size, partner);
  double lat[2] = {0, 0}, bw[2] = {0, 0};
  for (int k = 0; k < 2; ++k) {
    if (partner[k] < 0) continue;
    MPI_Barrier(comm);
    if (rank == 0 || rank == partner[k]) {
      lat[k] = pingpong_us(comm, rank, partner[k]);
      bw[k] = stream_gbs(comm, rank, partner[k]);
    }
  }
  if (rank != 0) return;
  std::string out = "{\"ranks\": " + std::to_string(size);
  const char* names[2] = {"intra", "inter"};
  char part[160];
  for (int k = 0; k < 2; ++k)
    if (partner[k] >= 0) {
      std::snprintf(part, sizeof part, ", \"latency_us_%s\": %.4f, \"bandwidth_gbs_%s\": %.4f, \"partner_%s\": %d",
                    names[k], lat[k], names[k], bw[k], names[k], partner[k]);
      out += part;
    }
  std::printf("%s}\n", out.c_str());
  std::fflush(stdout);
}

}  // namespace hpcsens::sweep
