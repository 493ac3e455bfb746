#include "preload/lifecycle.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/preload_env.h"
#include "common/run_id.h"
#include "common/safe_file.h"
#include "common/text_escape.h"
#include "preload/accounting.h"
#include "preload/clock.h"
#include "preload/job_facts.h"
#include "preload/papi_session.h"
#include "preload/pmpi.h"
#include "preload/rank_report.h"
#include "record/run_record.h"
#include "topdown/event_plan.h"

namespace hpcsens::preload {
namespace {

struct State {
  bool initialized = false;
  bool finalized = false;
  bool partial_written = false;
  int rank = 0;
  int size = 1;
  int pid = 0;
  std::string host;
  std::string out_dir;
  std::string run_id;
  std::string start_utc;
  std::string mpi_library;
  double t0 = 0, t1 = 0, t2 = 0, t3 = 0;
  PapiSession papi;
  TickClock ticks;
};

// Never destroyed: the exit handler may run after static destructors of this library.
State& state() {
  static State* s = new State;
  return *s;
}

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return (v != nullptr && *v != '\0') ? std::string(v) : fallback;
}

void warn(const std::string& what) { std::fprintf(stderr, "hpcsens: warning: %s\n", what.c_str()); }

// Outside bytes (not necessarily UTF-8), encoded losslessly for the record.
std::vector<std::string> own_command_line() {
  std::vector<std::string> args;
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string arg;
  while (std::getline(in, arg, '\0')) args.push_back(text::encode_outside(arg));
  return args;
}

JobInfo job_info(const State& s) {
  JobInfo job;
  job.command = command_from_env(std::getenv(env::kCommand), own_command_line());
  job.launcher = text::encode_outside(detect_launcher([](const char* n) { return std::getenv(n); }));
  job.mpi_library = s.mpi_library;
  job.start_utc = s.start_utc;
  return job;
}

record::RankRecord own_record(State& s) {
  record::RankRecord r =
      make_rank_record(merged_totals(), s.ticks.seconds_per_tick(), s.rank, s.host, s.pid, s.t0,
                       s.t1, s.t2, s.t3);
  r.counters = s.papi.values();
  r.counters_status = s.papi.status();
  r.event_set = s.papi.event_set();
  r.multiplexed = s.papi.multiplexed();
  return r;
}

nlohmann::json preload_notes(const State& s) {
  return {{"counters_notes", s.papi.notes()},
          {"counted_threads", threads_seen()},
          {"counters_scope", "thread that called MPI_Init"},
          {"call_clock", s.ticks.uses_tsc() ? "tsc" : "clock_monotonic"}};
}

bool write_record(const State& s, const std::string& path, const nlohmann::json& j, std::string* error) {
  if (record::write_json_atomic(path, j, error, /*create_dir=*/true)) return true;
  // Tell `hpcsens run` why (it would otherwise see only "no record"): a one-line note is small
  // enough to fit where the record did not. Best effort.
  safe_file::write_file_atomic(s.out_dir + "/" + s.run_id + ".write-error", path + ": " + *error + "\n");
  return false;
}

void at_exit() {
  // Reached when the process exits without MPI_Finalize (exit() after MPI_Init). A child forked
  // by the rank inherits this handler but is not the rank.
  if (getpid() != state().pid) return;
  before_abort();
}

std::string shared_run_id(State& s) {
  // Every rank must agree on the record name, also for partial records written without MPI.
  std::string id = env_or(env::kRunId, "");
  if (!id.empty()) {
    const std::string problem = run_id_problem(id);
    if (problem.empty()) return id;
    // Same on every rank (same environment), so every rank falls through to the generated id.
    if (s.rank == 0)
      warn(std::string(env::kRunId) + " '" + text::escape_for_message(id) + "' " + problem +
           " (it names a file in the output directory); using a generated id instead");
  }
  char buf[128] = {};
  if (s.rank == 0) {
    const std::string gen = make_run_id(std::time(nullptr), s.pid);
    std::strncpy(buf, gen.c_str(), sizeof buf - 1);
  }
  pmpi::Bcast.get()(buf, sizeof buf, pmpi::handles().byte, 0, pmpi::handles().world);
  return buf;
}

}  // namespace

void after_init() noexcept {
  State& s = state();
  if (s.initialized) return;
  InternalScope internal;
  const char* other = "another";
  if (!pmpi::resolve_handles(&other)) {
    // Wrong preload variant for this MPI: using its handles would crash the job, so stay inert
    // (no barriers, no record). Launchers export the rank before exec: only rank 0 warns.
    s.initialized = true;
    s.finalized = true;
    const char* r = std::getenv("OMPI_COMM_WORLD_RANK");
    if (r == nullptr) r = std::getenv("PMI_RANK");
    if (r == nullptr || std::strcmp(r, "0") == 0)
      std::fprintf(stderr,
                   "hpcsens: warning: this program uses %s but the %s preload was injected; "
                   "running unmeasured\n",
                   other, pmpi::own_mpi_name());
    return;
  }
  s.initialized = true;
  try {
    MPI_Comm world = pmpi::handles().world;
    pmpi::Comm_rank.get()(world, &s.rank);
    pmpi::Comm_size.get()(world, &s.size);
    s.pid = static_cast<int>(getpid());
    char name[MPI_MAX_PROCESSOR_NAME + 1] = {};
    int len = 0;
    pmpi::Get_processor_name.get()(name, &len);
    s.host = text::encode_outside(name);
    char version[MPI_MAX_LIBRARY_VERSION_STRING + 1] = {};
    pmpi::Get_library_version.get()(version, &len);
    s.mpi_library = text::encode_outside(first_line(version));
    s.out_dir = env_or(env::kOutDir, "hpcsens-out");
    s.start_utc = text::encode_outside(env_or(env::kStartUtc, utc_iso8601(std::time(nullptr))));
    s.run_id = shared_run_id(s);
    // Counter set-up is slow, so it happens before t0 and only the start is inside the span.
    const std::string spec = env_or(env::kEvents, "default");
    s.papi.prepare(topdown::plan_events(spec, topdown::detect_cpu()));
    if (s.rank == 0 && s.papi.warn()) warn("counters: " + s.papi.status() + "; the job runs on");
    std::atexit(at_exit);
  } catch (...) {
    // Never break the job: without set-up we still time it.
  }
  s.t0 = now_s();
  pmpi::Barrier.get()(pmpi::handles().world);
  s.t1 = now_s();
  s.ticks.start();
  s.papi.start();
  g_counting.store(true, std::memory_order_release);
}

void before_finalize() noexcept {
  State& s = state();
  if (!s.initialized || s.finalized) return;
  InternalScope internal;
  s.papi.stop();
  s.t2 = now_s();
  g_counting.store(false, std::memory_order_release);
  MPI_Comm world = pmpi::handles().world;
  pmpi::Barrier.get()(world);
  s.t3 = now_s();
  s.finalized = true;
  try {
    // Never throws for text: a rank must not leave the others waiting in the gather.
    const std::string mine =
        record::to_json(own_record(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    int len = static_cast<int>(mine.size());
    std::vector<int> lens(s.rank == 0 ? s.size : 0);
    MPI_Datatype byte = pmpi::handles().byte;
    pmpi::Gather.get()(&len, sizeof(int), byte, lens.data(), sizeof(int), byte, 0, world);
    std::vector<int> displs(lens.size());
    std::string all;
    if (s.rank == 0) {
      long total = 0;
      for (size_t i = 0; i < lens.size(); ++i) {
        displs[i] = static_cast<int>(total);
        total += lens[i];
      }
      all.resize(static_cast<size_t>(total));
    }
    pmpi::Gatherv.get()(mine.data(), len, byte, all.data(), lens.data(), displs.data(), byte, 0,
                        world);
    if (s.rank != 0) return;
    std::vector<record::RankRecord> ranks;
    for (size_t i = 0; i < lens.size(); ++i) {
      const auto j = nlohmann::json::parse(all.substr(displs[i], lens[i]));
      ranks.push_back(record::rank_from_json(j, "rank " + std::to_string(i)));
    }
    record::RunRecord run = assemble_run(job_info(s), std::move(ranks));
    run.extra["preload"] = preload_notes(s);
    const GetEnv getenv_fn = [](const char* n) { return std::getenv(n); };
    if (auto slurm = slurm_facts(getenv_fn); !slurm.is_null()) run.extra["slurm"] = slurm;
    std::string error;
    const std::string path = record_path(s.out_dir, s.run_id);
    if (!write_record(s, path, record::to_json(run), &error))
      warn("cannot write the run record " + path + ": " + error + "; the job runs on");
    else if (env_only(getenv_fn))
      std::fprintf(stderr, "%s\n", banner_line(run, path).c_str());
  } catch (const std::exception& e) {
    if (s.rank == 0) warn(std::string("run record not written: ") + e.what());
  }
}

void before_abort() noexcept {
  State& s = state();
  if (!s.initialized || s.finalized || s.partial_written) return;
  s.partial_written = true;
  InternalScope internal;
  g_counting.store(false, std::memory_order_release);
  s.papi.stop();
  s.t2 = s.t3 = now_s();
  try {
    record::RankRecord r = own_record(s);
    r.complete = false;
    record::RunRecord run = assemble_run(job_info(s), {r});
    run.job.nranks = s.size;
    run.complete = false;
    run.extra["preload"] = preload_notes(s);
    std::string error;
    const std::string path = partial_path(s.out_dir, s.run_id, s.rank);
    if (!write_record(s, path, record::to_json(run), &error) && s.rank == 0)
      warn("cannot write the partial record " + path + ": " + error);
  } catch (const std::exception& e) {
    if (s.rank == 0) warn(std::string("partial record not written: ") + e.what());
  }
}

}  // namespace hpcsens::preload
