#pragma once
// The I/O part of a run's answer: which operation the I/O time went to (reads, writes, syncs,
// metadata), from the per-call totals the record keeps, and the advice that names it with its
// measured figure. One rule for every output: a call belongs to the interface the program
// called (docs/record-format.md, "files"), so "I/O by class", "Files by I/O time" and this answer
// add up to the same totals.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hpcsens::report {

struct Answer;
struct RunFacts;

enum class IoOp { kRead, kWrite, kSync, kMeta };
inline constexpr int kIoOps = 4;
// fsync, fdatasync, fflush, MPI_File_sync: sync; read/get/scanf calls: read; write/put/printf
// calls: write; the rest (opens, closes, seeks, MPI-IO's other calls): meta.
IoOp io_op_of(std::string_view call);
const char* io_op_name(IoOp op);   // "reads", "writes", "syncs", "metadata"
const char* io_op_calls(IoOp op);  // the calls a sync or metadata operation is ("" for reads and writes)

// I/O time, calls and bytes by operation over all ranks.
struct IoOps {
  double seconds[kIoOps] = {};
  std::uint64_t calls[kIoOps] = {}, bytes[kIoOps] = {};
  void add(std::string_view call, std::uint64_t count, double seconds, std::uint64_t bytes);
  double total() const;
  IoOp top() const;  // the operation with the most time
};

// Mean bytes per call under which writes or reads are "small" (a file system's block size is
// 4 KiB to 1 MiB; below 64 KiB per call the per-call cost dominates on every one we know).
inline constexpr double kSmallAccess = 64 * 1024;

// The answer of a run whose I/O dominates (headline.h: Dominant::kIo), every share with its base.
Answer io_answer(const RunFacts& f);

}  // namespace hpcsens::report
