#include "report/headline_io.h"

#include <fmt/core.h>

#include <algorithm>

#include "common/human_units.h"
#include "report/headline.h"

namespace hpcsens::report {
namespace {

bool mentions(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }
std::string io_pct(double f) { return human::percent(f); }
std::size_t at(IoOp op) { return static_cast<std::size_t>(op); }

// One rank does more than half of the I/O and well above its fair share (1/ranks).
bool on_one_rank(const RunFacts& f) {
  return f.ranks > 1 && f.top_io_rank_share > std::max(0.5, 1.5 / static_cast<double>(f.ranks));
}

// "I/O takes 80 % of the run: rank 0 spent 0.333 s of the 0.416 s job in I/O" or, spread over
// ranks, "I/O takes 30 % of the ranks' time (1.2 s of 4.0 s summed over 4 ranks)".
std::string share_text(const RunFacts& f) {
  const double spread = f.wall_sum > 0 ? f.io_sum / f.wall_sum : 0;
  const double io_max = f.top_io_rank_share * f.io_sum;
  const double one = f.job_s > 0 && f.top_io_rank >= 0 ? io_max / f.job_s : 0;
  if (one > spread)
    return fmt::format("I/O takes {} of the run: rank {} spent {} of the {} job in I/O", io_pct(std::min(1.0, one)),
                       f.top_io_rank, human::seconds(io_max), human::seconds(f.job_s));
  return fmt::format("I/O takes {} of the ranks' time ({} of {} summed over {} ranks)", io_pct(spread),
                     human::seconds(f.io_sum), human::seconds(f.wall_sum), f.ranks);
}

std::string mean_size(std::uint64_t bytes, std::uint64_t calls) {
  return human::bytes(calls > 0 ? static_cast<double>(bytes) / static_cast<double>(calls) : 0);
}

// What to do about `op`, with its figures; "" when it took no time.
std::string op_advice(const IoOps& o, IoOp op) {
  const double s = o.seconds[at(op)], total = o.total();
  const std::uint64_t n = o.calls[at(op)], bytes = o.bytes[at(op)];
  if (s <= 0 || total <= 0) return "";
  const std::string share = fmt::format("{} of {} of I/O ({} of all I/O time)", human::seconds(s), human::seconds(total),
                                        io_pct(s / total));
  const double mean = n > 0 ? static_cast<double>(bytes) / static_cast<double>(n) : 0;
  switch (op) {
    case IoOp::kSync:
      return fmt::format("Sync less often: fsync, fdatasync and fflush took {} in {} call{}; one sync at the end "
                         "of an output phase (or none, where the file system's write-back is enough) removes most "
                         "of it.", share, n, n == 1 ? "" : "s");
    case IoOp::kMeta:
      return fmt::format("Open, close and seek less often: they took {} in {} calls ({} each); keep files open "
                         "across steps.", share, n, human::seconds(n > 0 ? s / static_cast<double>(n) : 0));
    case IoOp::kWrite:
    case IoOp::kRead: {
      const char* verb = op == IoOp::kWrite ? "write" : "read";
      if (mean < kSmallAccess)
        return fmt::format("{} in larger blocks: {} {}s of {} on average took {}; buffer to 1 MiB or more per "
                           "call.", op == IoOp::kWrite ? "Write" : "Read", n, verb, mean_size(bytes, n), share);
      return fmt::format("The {}s are already large ({} per call; {} at {}/s took {}): {} less data, or use "
                         "faster storage (node-local disk, a parallel file system).",
                         verb, mean_size(bytes, n), human::bytes(static_cast<double>(bytes)),
                         human::bytes(static_cast<double>(bytes) / s), share, op == IoOp::kWrite ? "Write" : "Read");
    }
  }
  return "";
}

}  // namespace

IoOp io_op_of(std::string_view c) {
  if (c == "fsync" || c == "fdatasync" || c == "fflush" || c == "MPI_File_sync") return IoOp::kSync;
  if (mentions(c, "write") || mentions(c, "put") || mentions(c, "printf")) return IoOp::kWrite;
  if (mentions(c, "read") || mentions(c, "get") || mentions(c, "scanf")) return IoOp::kRead;
  return IoOp::kMeta;
}

const char* io_op_name(IoOp op) {
  switch (op) {
    case IoOp::kRead: return "reads";
    case IoOp::kWrite: return "writes";
    case IoOp::kSync: return "syncs";
    case IoOp::kMeta: break;
  }
  return "metadata";
}

const char* io_op_calls(IoOp op) {
  return op == IoOp::kSync ? "fsync, fdatasync, fflush" : op == IoOp::kMeta ? "open, close, seek" : "";
}

void IoOps::add(std::string_view call, std::uint64_t count, double s, std::uint64_t b) {
  const std::size_t i = at(io_op_of(call));
  seconds[i] += s, calls[i] += count, bytes[i] += b;
}

double IoOps::total() const { return seconds[0] + seconds[1] + seconds[2] + seconds[3]; }

IoOp IoOps::top() const {
  std::size_t best = 0;
  for (std::size_t i = 1; i < kIoOps; ++i)
    if (seconds[i] > seconds[best]) best = i;
  return static_cast<IoOp>(best);
}

Answer io_answer(const RunFacts& f) {
  Answer a;
  a.tone = "caution";
  const IoOps& o = f.io_ops;
  std::string of_io;  // what the I/O time went to, over all ranks
  if (o.total() > 0) {
    const IoOp top = o.top();
    const std::string calls = io_op_calls(top);
    of_io = fmt::format(". Of the {} of I/O over all ranks, {} are {} ({}{})", human::seconds(o.total()),
                        io_pct(o.seconds[at(top)] / o.total()), io_op_name(top), calls.empty() ? "" : calls + ": ",
                        human::seconds(o.seconds[at(top)]));
  }
  if (!f.top_io_class.empty())
    of_io += fmt::format("{} {} calls hold {} of {}", of_io.empty() ? ". Over all ranks," : ";", f.top_io_class,
                         io_pct(f.top_io_class_share), of_io.empty() ? "the I/O time" : "it");
  a.headline = share_text(f) + of_io + ".";
  if (o.total() > 0) {
    a.advice.push_back(op_advice(o, o.top()));
    for (std::size_t i = 0; i < kIoOps; ++i)  // a second operation that holds a third or more
      if (static_cast<IoOp>(i) != o.top() && o.seconds[i] >= o.total() / 3)
        a.advice.push_back(op_advice(o, static_cast<IoOp>(i)));
  }
  if (on_one_rank(f))
    a.advice.push_back(fmt::format("Spread the I/O over ranks (MPI-IO collective writes, or one file per rank): "
                                   "rank {} does {} of all I/O time ({}) while the others wait.",
                                   f.top_io_rank, io_pct(f.top_io_rank_share),
                                   human::seconds(f.top_io_rank_share * f.io_sum)));
  return a;
}

}  // namespace hpcsens::report
