#include "preload/lifecycle.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/preload_env.h"
#include "common/run_id.h"
#include "common/safe_file.h"
#include "common/text_escape.h"
#include "preload/account/accounting.h"
#include "preload/account/clock.h"
#include "preload/io/fd_track.h"
#include "preload/account/job_facts.h"
#include "preload/real/missing_symbol.h"
#include "preload/account/counter_client.h"
#include "preload/account/node_agent.h"
#include "preload/account/cpu_share.h"
#include "preload/account/memory_use.h"
#include "preload/real/pmpi.h"
#include "preload/rank_record/msg_report.h"
#include "preload/account/net_delay.h"
#include "preload/account/net_nodes.h"
#include "preload/real/own_arguments.h"
#include "preload/rank_record/rank_report.h"
#include "preload/rank_record/record_gather.h"
#include "preload/rank_record/record_stream.h"
#include "preload/interpose/persistent_sends.h"
#include "preload/interpose/recv_completion.h"
#include "preload/rank_record/regions.h"
#include "preload/rank_record/signal_partial.h"
#include "preload/rank_record/timeline_report.h"
#include "preload/rank_record/callsite_report.h"
#include "preload/rank_record/file_report.h"
#include "preload/rank_record/preload_notes.h"
#include "preload/account/callsites.h"
#include "record/record_text.h"
#include "record/run_record.h"

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
  CounterClient papi;
  TickClock ticks;
  NetDelayState net;  // the network-delay knob of this run (off unless the sweep set it)
  const ThreadCounts* main_slot = nullptr;  // the thread that called MPI_Init
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

void warn(const std::string& what) { std::fprintf(stderr, "hpcsens: warning: %s\n", text::escape_for_message(what).c_str()); }

// Outside bytes (not necessarily UTF-8), encoded losslessly for the record.
std::vector<std::string> own_command_line() {
  std::vector<std::string> args = own_arguments();
  for (auto& a : args) a = text::encode_outside(a);
  return args;
}

JobInfo job_info(const State& s) {
  JobInfo job;
  job.command = command_from_env(std::getenv(env::kCommand), own_command_line());
  job.launcher = text::encode_outside(detect_launcher([](const char* n) { return std::getenv(n); }));
  job.mpi_library = s.mpi_library;
  job.start_utc = s.start_utc;
  job.program = text::encode_outside(program_label(own_arguments()));
  return job;
}

record::RankRecord own_record(State& s, const CallTotals& totals) {
  record::RankRecord r =
      make_rank_record(totals, s.ticks.seconds_per_tick(), s.rank, s.host, s.pid, s.t0,
                       s.t1, s.t2, s.t3);
  r.counters = s.papi.values();
  r.counters_status = s.papi.status();
  r.event_set = s.papi.event_set();
  r.multiplexed = s.papi.multiplexed();
  r.counter_running_fraction = s.papi.running_fraction();
  r.counter_running_fraction_reason = s.papi.running_fraction_reason();
  return r;
}

// The rank object with the schema_minor 2 fields (docs/record-format.md).
nlohmann::json rank_json(State& s, const CallTotals& totals, const record::RankRecord& r) {
  const double spt = s.ticks.seconds_per_tick();
  nlohmann::json memory = memory_json();  // first: the record's own allocations are not the program's
  nlohmann::json j = record::to_json(r);
  if (auto io = io_classes(totals, spt); !io.empty()) j["io"] = std::move(io);
  const ThreadCounts* slots[kMaxThreadSlots + 1];
  const MergedMessages m = merge_messages(slots, used_slots(slots, kMaxThreadSlots + 1));
  if (auto sizes = msg_sizes(*m.hist); !sizes.empty()) j["msg_sizes"] = std::move(sizes);
  add_partners(m, j);
  if (auto regions = region_results(spt); !regions.empty()) j["regions"] = regions_json(regions);
  j["timeline"] = timeline_json(g_timeline, spt, region_name);
  nlohmann::json build_ids;
  if (auto sites = callsites_json(spt, &build_ids); !sites.is_null()) j["callsites"] = std::move(sites);
  if (!build_ids.empty()) j["callsite_build_ids"] = std::move(build_ids);
  if (*callsites_error() != '\0') j["callsites_error"] = callsites_error();
  if (const auto lost = callsite_drops(); lost > 0) j["callsite_drops"] = lost;
  j["files"] = files_json(g_files, files_used(), spt, g_timeline.t0());
  j["files_dropped"] = files_dropped();
  j["mpi_s_main_thread"] = s.main_slot ? mpi_seconds(s.main_slot->calls, spt) : 0.0;
  j["cpu"] = cpu_share_json();
  if (!memory.empty()) j["memory"] = std::move(memory);
  // The node's energy from its counter agent; `hpcsens run` folds it into the record's energy
  // section (energy/sampler.h merge_rank_node_energy).
  if (!s.papi.node_energy().empty())
    j["node_energy"] = nlohmann::json::parse(s.papi.node_energy(), nullptr, /*allow_exceptions=*/false);
  return j;
}

std::size_t rank_budget() {
  // Bytes of one rank's object in the record; beyond it the largest parts are dropped.
  const char* v = std::getenv("HPCSENS_RANK_BYTES");
  const long long n = v ? std::atoll(v) : 0;
  // Between 1 KiB and 1 GiB: each rank's text travels as one message with an int count.
  if (n < 1024) return std::size_t{256} << 10;
  return static_cast<std::size_t>(std::min<long long>(n, 1ll << 30));
}

// Functions the program called that no loaded library defines (missing_symbol.h).
nlohmann::json preload_notes(const State& s) {
  nlohmann::json notes = {{"counters_notes", s.papi.notes()},
          {"counted_threads", threads_seen()},
          {"counters_scope", "thread that called MPI_Init"},
          {"threads_note", "mpi_s sums every thread's time inside MPI, so with several threads it "
                           "can exceed wall_s; mpi_s_main_thread is the MPI_Init thread's alone"},
          {"call_clock", s.ticks.uses_tsc() ? "tsc" : "clock_monotonic"},
          {"counter_agent_vmhwm_kib", s.papi.agent_vmhwm_kib()},
          {"counter_agent_private_kib", s.papi.agent_private_kib()},
          {"counter_agent_ranks", s.papi.agent_ranks()}};
  add_missing_functions_note(notes);
  return notes;
}

// Tells `hpcsens run` why there is no record (it would otherwise see only "no record"): a
// one-line note is small enough to fit where the record did not. Best effort; under a fresh name
// (run/run_files.h), so nothing planted in the directory can take its place.
void leave_write_error_note(const State& s, const std::string& path, const std::string& error) {
  safe_file::Dir d;
  std::string written;
  if (safe_file::open_dir(s.out_dir, false, &d).empty())
    safe_file::write_unique(d, s.run_id, ".write-error", path + ": " + error + "\n", &written);
}

// This rank's partial record under a fresh name "<run_id>.rank<N>.<random>.partial.json".
bool write_record(const State& s, const std::string& path, const nlohmann::json& j, std::string* error) {
  std::string text, written;
  if (!record::record_text(j, &text, error)) return false;
  safe_file::Dir d;
  *error = safe_file::open_dir(s.out_dir, true, &d);
  if (error->empty())
    *error = safe_file::write_unique(d, s.run_id + ".rank" + std::to_string(s.rank), ".partial.json", text, &written);
  if (error->empty()) return true;
  leave_write_error_note(s, path, *error);
  return false;
}

// This rank alone, as a record `hpcsens run` merges with the other ranks' (abort, exit without
// finalize, or a finalize where some rank could not take part in the collective record).
void write_partial(State& s, bool complete, bool quiet = false) noexcept {
  try {
    const CallTotals totals = merged_totals();
    record::RankRecord r = own_record(s, totals);
    r.complete = complete;
    nlohmann::json rank = rank_json(s, totals, r);
    fit_to_budget(rank, rank_budget());
    record::RunRecord run = assemble_run(job_info(s), {r});
    run.job.nranks = s.size;
    run.complete = complete;
    run.extra["preload"] = preload_notes(s);
    nlohmann::json j = record::to_json(run);
    j["schema_minor"] = 2;
    j["ranks"] = nlohmann::json::array({std::move(rank)});
    std::string error;
    const std::string path = partial_path(s.out_dir, s.run_id, s.rank);
    if (!write_record(s, path, j, &error) && s.rank == 0 && !quiet)
      warn("cannot write the partial record " + path + ": " + error);
  } catch (const std::exception& e) {
    if (s.rank == 0) warn(std::string("partial record not written: ") + e.what());
  }
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

// A rank killed by a catchable signal leaves what it measured (signal_partial.h). Best effort: a
// rank that cannot arm it writes its record the ordinary ways.
void arm_for_signals(State& s) noexcept {
  try {
    record::RunRecord run = assemble_run(job_info(s), {});
    run.job.nranks = s.size;
    const nlohmann::json job = record::to_json(run).at("job");
    SignalPartialSetup setup{s.out_dir, s.run_id, s.rank, s.pid, "", &s.ticks};
    setup.head = signal_partial_head(job.dump(), s.rank, nlohmann::json(s.host).dump(), s.pid, s.t0, s.t1);
    (void)arm_signal_partial(std::move(setup), s.t1);
  } catch (...) {
  }
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
    // The event names reach the record (counter keys, status, notes) and warnings: stored
    // losslessly like every outside string. Identity for every real PAPI name (ASCII, no '\').
    // The counter agent plans and counts them (PAPI stays out of this process).
    const std::string spec = text::encode_outside(env_or(env::kEvents, "default"));
    // One agent per node counts every rank of the node (node_agent.h).
    prepare_node_counters(s.papi, world, counter_agent_path(), spec, static_cast<pid_t>(::syscall(SYS_gettid)));
    if (s.rank == 0 && s.papi.warn()) warn("counters: " + s.papi.status() + "; the job runs on");
    s.net = setup_net_delay();
    if (s.net.on) s.net.nodes = gather_net_nodes(world, s.size, s.host);
    if (s.rank == 0 && !s.net.error.empty()) warn("network delay off: " + s.net.error + "; the job runs on");
    std::atexit(at_exit);
  } catch (...) {
    // Never break the job: without set-up we still time it.
  }
  s.t0 = now_s();
  pmpi::Barrier.get()(pmpi::handles().world);
  s.t1 = now_s();
  s.main_slot = own_thread_slot();
  s.ticks.start();
  // The timeline starts as close to t1 as the tick clock allows: its bins cover the wall span
  // less this set-up (the signal handler's set-up, which opens the output directory, comes after).
  timeline_begin(s.main_slot, s.ticks.uses_tsc());
  arm_for_signals(s);
  callsites_begin(std::getenv(env::kCallSites), std::getenv(env::kStackDepth));
  s.papi.start();
  g_counting.store(true, std::memory_order_release);
}

void before_finalize() noexcept {
  State& s = state();
  if (!s.initialized || s.finalized) return;
  disarm_signal_partial();
  InternalScope internal;
  s.papi.stop();
  s.t2 = now_s();
  close_open_regions();  // at t2: the finalize barrier is not part of any region
  timeline_end();
  g_counting.store(false, std::memory_order_release);
  MPI_Comm world = pmpi::handles().world;
  pmpi::Barrier.get()(world);
  s.t3 = now_s();
  s.finalized = true;
  s.papi.release();  // every rank of the node has stopped: the node's agent has exited or soon will
  // Each rank builds its text first; then every rank learns whether all could (and whether rank 0
  // can write the record) before any rank enters the gather, so no rank waits on one that failed.
  std::string text;
  RankHeader header;
  bool ok = true;
  try {
    const CallTotals totals = merged_totals();
    const record::RankRecord r = own_record(s, totals);
    nlohmann::json j = rank_json(s, totals, r);
    text = fit_to_budget(j, rank_budget());
    header = header_of(r, text.size());
    header.untracked_files = g_untracked_files.load(std::memory_order_relaxed);
    header.region_drops = region_drops();
    header.recv_fallbacks = recv_fallbacks();
    header.persistent_drops = persistent_drops();
    header.truncated = j.contains("truncated") ? 1 : 0;
  } catch (const std::exception& e) {
    warn(std::string("rank ") + std::to_string(s.rank) + ": record not built: " + e.what());
    ok = false;
  }
  const std::string path = record_path(s.out_dir, s.run_id);
  RecordStream stream;
  bool rank0_warned = false;
  if (s.rank == 0 && ok) {
    if (std::string err = stream.open(s.out_dir, s.run_id); !err.empty()) {
      warn("cannot write the run record " + path + ": " + err + "; the job runs on");
      ok = false;
      rank0_warned = true;
    }
  }
  if (!all_agree(world, ok)) {
    // Every rank knows: each writes its own part, which `hpcsens run` merges.
    write_partial(s, /*complete=*/true, /*quiet=*/rank0_warned);
    return;
  }
  try {
    std::string err = stream_ranks(world, s.rank, s.size, header, text, &stream);
    if (s.rank != 0) return;
    nlohmann::json extra = {{"preload", preload_notes(s)}};
    if (auto net = net_delay_note(s.net, s.ticks.seconds_per_tick()); !net.is_null()) extra["preload"]["net_delay"] = std::move(net);
    if (auto d = stream.drops(); !d.empty()) {
      extra["preload"]["drops"] = d;
      warn("some measurements were dropped (" + d.dump() + "); see the record's preload.drops");
    }
    const GetEnv getenv_fn = [](const char* n) { return std::getenv(n); };
    if (auto slurm = slurm_facts(getenv_fn); !slurm.is_null()) extra["slurm"] = slurm;
    if (err.empty()) err = stream.finish(job_info(s), extra);
    if (!err.empty()) {
      warn("cannot write the run record " + path + ": " + err + "; the job runs on");
      leave_write_error_note(s, path, err);
    } else if (env_only(getenv_fn)) {
      std::fprintf(stderr, "%s\n", banner_line(stream.summary(), stream.path()).c_str());
    }
  } catch (const std::exception& e) {
    if (s.rank == 0) warn(std::string("run record not written: ") + e.what());
  }
}

void before_abort() noexcept {
  State& s = state();
  if (!s.initialized || s.finalized || s.partial_written) return;
  s.partial_written = true;
  disarm_signal_partial();
  InternalScope internal;
  g_counting.store(false, std::memory_order_release);
  s.papi.stop();
  s.t2 = s.t3 = now_s();
  close_open_regions();
  timeline_end();
  write_partial(s, /*complete=*/false);
}

}  // namespace hpcsens::preload
