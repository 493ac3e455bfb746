#pragma once
// Collecting the ranks' records on rank 0 at MPI_Finalize (MPI calls; see record_stream.h for
// the file). Rank 0 asks each rank in turn for its fixed header and its text, writes the text
// and reuses one buffer: its memory holds one rank's text at a time, every message is below the
// per-rank byte budget (no int overflow), and ranks do not flood rank 0 with unexpected sends.
#include <string>

#include "preload/real/pmpi.h"
#include "preload/rank_record/record_stream.h"

namespace hpcsens::preload {

// Every rank calls this with its header and text; on rank 0 `stream` is open (or nullptr when
// opening failed: the ranks are still received, so no rank waits forever). Returns rank 0's first
// write error, "" otherwise.
std::string stream_ranks(MPI_Comm comm, int rank, int size, const RankHeader& mine,
                         const std::string& text, RecordStream* stream);

// True on every rank when `ok` is true on every rank (a bitwise-and allreduce of one byte), so
// that a failure on one rank sends all of them down the same path instead of into a collective
// the failed one never joins.
bool all_agree(MPI_Comm comm, bool ok);

}  // namespace hpcsens::preload
