#include "preload/rank_record/record_gather.h"

#include <vector>

namespace hpcsens::preload {
namespace {
constexpr int kTagGo = 1, kTagHeader = 2, kTagText = 3;
}

bool all_agree(MPI_Comm comm, bool ok) {
  unsigned char mine = ok ? 1 : 0, all = 0;
  if (pmpi::Allreduce.get()(&mine, &all, 1, pmpi::handles().byte, pmpi::handles().op_band,
                            comm) != MPI_SUCCESS)
    return false;
  return all == 1;
}

std::string stream_ranks(MPI_Comm comm, int rank, int size, const RankHeader& mine,
                         const std::string& text, RecordStream* stream) {
  const MPI_Datatype byte = pmpi::handles().byte;
  if (rank != 0) {
    unsigned char go = 0;
    pmpi::Recv.get()(&go, 1, byte, 0, kTagGo, comm, MPI_STATUS_IGNORE);
    pmpi::Send.get()(&mine, sizeof mine, byte, 0, kTagHeader, comm);
    pmpi::Send.get()(text.data(), static_cast<int>(text.size()), byte, 0, kTagText, comm);
    return "";
  }
  std::string error;
  auto keep = [&](const std::string& err) {
    if (error.empty()) error = err;
  };
  if (stream) keep(stream->add(mine, text));
  std::vector<char> buf;
  for (int r = 1; r < size; ++r) {
    unsigned char go = 1;
    RankHeader h;
    pmpi::Send.get()(&go, 1, byte, r, kTagGo, comm);
    pmpi::Recv.get()(&h, sizeof h, byte, r, kTagHeader, comm, MPI_STATUS_IGNORE);
    buf.resize(h.text_bytes);
    pmpi::Recv.get()(buf.data(), static_cast<int>(buf.size()), byte, r, kTagText, comm,
                     MPI_STATUS_IGNORE);
    if (stream && error.empty()) keep(stream->add(h, std::string_view(buf.data(), buf.size())));
  }
  return error;
}

}  // namespace hpcsens::preload
