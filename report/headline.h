#pragma once
// The answer a report opens with: one sentence with the number behind it, then a short list of
// what to try, each tied to a measured number (as Linaro Performance Reports does). All the rules
// live here, as pure functions of the numbers they judge, so a record whose answer is known can be
// checked without a browser or a terminal.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/answer.h"
#include "report/headline_io.h"

namespace hpcsens::report {

struct RunScan;

// How a page colours its answer: ok (green), caution (orange), bad (red), info (neutral).
struct Answer {
  std::string headline;
  // Actions, each naming the measured figure that motivates it.
  std::vector<std::string> advice;
  std::string tone = "info";
  // What limits the headline (a verdict's reasons, a rate the sweep held, emulated data): shown
  // under it as caveats, never as something to try.
  std::vector<std::string> caveats;
};

// What a run's headline is judged from (docs/methodology.md, "The answer first").
struct RunFacts {
  std::size_t ranks = 0;
  double job_s = 0;                          // barrier-corrected job time
  double wall_sum = 0, compute_sum = 0, mpi_sum = 0, io_sum = 0;  // over ranks [s]
  double compute_mean = 0, compute_max = 0;  // per rank [s]
  int slowest_rank = -1;
  double others_mpi_share = 0;  // mean MPI share of wall over the ranks other than the slowest
  std::string top_call;         // MPI call with the most time over all ranks
  double top_call_share = 0;    // its share of all MPI time
  std::string top_io_class;     // posix | stdio | mpiio with the most I/O time (the interface called)
  double top_io_class_share = 0;  // its share of all I/O time
  IoOps io_ops;                 // I/O time by operation (read, write, sync, meta) over all ranks
  int top_io_rank = -1;         // rank with the most I/O time
  double top_io_rank_share = 0;   // its share of all I/O time
  std::string oversubscribed;     // what shows more ranks than CPUs ("" if nothing does)
  // Ranks that never reached MPI_Finalize (aborted, killed, crashed) and the job's size; 0, 0 for
  // a run that finished.
  std::size_t unfinished = 0, job_ranks = 0;
  // What the network-delay knob added to every message ("" where it was off): the MPI time then
  // stands for the emulated network, not this machine's.
  std::string net_delay_added;
  // Top-Down: "" not asked for, "ok" counted, else why not (a missing PMU): no advice then says to
  // run --events topdown again.
  std::string topdown;
};

// What dominates a run, in the order its sections should appear.
enum class Dominant { kImbalance, kIo, kMpi, kCompute, kNothing };

RunFacts run_facts(const RunScan& scan);
Dominant dominant(const RunFacts& f);
Answer run_answer(const RunFacts& f);

// A model's and a sweep's answer is in report/model_view.h; a prediction's and a mix's is built by
// `hpcsens predict` (model/predict_answer.h) and carried in its JSON, which the pages render.

// The model's own formula: "T = W_cpu / R_cpu + T_fixed" for cpu+fixed, and so on.
std::string model_formula(const std::string& model_name);

// The run's, model's and sweep's answer in the layout every answer shares (common/answer.h), so
// "Caveat:" and the advice read as a prediction's and a mix's do.
answer::Answer shared_answer(const Answer& a);
// Text form for the terminal: "Answer: ...", "  Caveat: ..." lines, then "  - advice" lines, then a
// blank line.
std::string answer_text(const Answer& a);
// Markdown: "### Answer", the headline, "Caveat:" lines, then "What to try" items.
std::string answer_markdown(const Answer& a);

}  // namespace hpcsens::report
