#include "sweep/runner.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <thread>

#include <fmt/core.h>

#include "common/errors.h"
#include "record/run_record.h"
#include "sweep/calibrate.h"
#include "sweep/emulated.h"
#include "sweep/journal.h"
#include "sweep/knobs.h"
#include "sweep/plan.h"
#include "sweep/progress.h"
#include "sweep/restore.h"
#include "sweep/subprocess.h"

namespace fs = std::filesystem;

namespace hpcsens::sweep {
namespace {

volatile std::sig_atomic_t g_stop = 0;

void on_stop_signal(int sig) { g_stop = sig; }

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  char utc[32];
  std::strftime(utc, sizeof utc, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return utc;
}

std::string num(double v) { return fmt::format("{:g}", v); }

// Nodes of the surrounding Slurm allocation (1 outside Slurm).
int slurm_nnodes() {
  for (const char* var : {"SLURM_JOB_NUM_NODES", "SLURM_NNODES"})
    if (const char* v = std::getenv(var)) {
      const int n = std::atoi(v);
      if (n > 0) return n;
    }
  return 1;
}

// While a job started by another module runs, a stop signal must still end it: this watcher
// passes SIGTERM (then SIGKILL) to every process below us.
class StopWatcher {
 public:
  StopWatcher() : thread_([this] { loop(); }) {}
  ~StopWatcher() {
    done_ = true;
    thread_.join();
  }

 private:
  void loop() {
    double sent = -1;
    int waited = 0;
    while (!done_) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      if (!g_stop) continue;
      if (sent < 0) {
        signal_descendants(::getpid(), SIGTERM);
        sent = 0;
      } else if (++waited == 100) {  // 5 s grace, then no more waiting
        signal_descendants(::getpid(), SIGKILL);
      }
    }
  }
  std::atomic<bool> done_{false};
  std::thread thread_;
};

// Runs one job through the run module in a child process of ours. The run module installs its
// own SIGINT/SIGTERM/SIGHUP handlers (to forward them to the job), which would swallow the
// sweep's stop request; in a child they cannot, and the watcher still ends the whole tree.
run::RunResult run_isolated(const JobRunner& runner, const run::RunRequest& req) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::close(fds[0]);
    for (int s : {SIGINT, SIGTERM, SIGHUP}) ::signal(s, SIG_DFL);
    nlohmann::json out;
    try {
      const auto r = runner(req);
      out = {{"exit_status", r.exit_status}, {"timed_out", r.timed_out}, {"record_path", r.record_path},
             {"error", r.error}};
    } catch (const std::exception& e) {
      out = {{"exit_status", 1}, {"timed_out", false}, {"record_path", ""}, {"error", e.what()}};
    }
    const std::string text = out.dump();
    std::size_t off = 0;
    while (off < text.size()) {
      const ssize_t n = ::write(fds[1], text.data() + off, text.size() - off);
      if (n <= 0) break;
      off += std::size_t(n);
    }
    std::fflush(stdout);
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string text;
  {
    StopWatcher watcher;
    char buf[4096];
    for (;;) {
      const ssize_t n = ::read(fds[0], buf, sizeof buf);
      if (n > 0) text.append(buf, std::size_t(n));
      else if (n == 0 || errno != EINTR) break;
    }
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  ::close(fds[0]);
  run::RunResult r;
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    r.exit_status = 1;
    r.error = "the run module ended without a result";
    return r;
  }
  r.exit_status = j.value("exit_status", 1);
  r.timed_out = j.value("timed_out", false);
  r.record_path = j.value("record_path", "");
  r.error = j.value("error", "");
  return r;
}

nlohmann::json point_json(const Point& p, const SweepSpec& spec) {
  nlohmann::json j = {{"point", p.index}, {"label", p.label}};
  if (p.cpu_ghz) j["cpu_ghz_requested"] = *p.cpu_ghz;
  if (p.uncore) {
    j["uncore_min_ghz"] = p.uncore->min_ghz;
    j["uncore_max_ghz"] = p.uncore->max_ghz;
  }
  if (p.memory) j["memory_config"] = spec.memory[*p.memory].name;
  return j;
}

bool record_readable(const std::string& path) {
  if (!fs::exists(path)) return false;
  try {
    record::load_run_record(path);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

std::vector<std::string> plan_ids(const Plan& plan) {
  std::vector<std::string> ids;
  for (const auto& r : plan.runs) ids.push_back(r.id);
  return ids;
}

void run_commands(const std::vector<Argv>& cmds) {
  for (const auto& c : cmds) {
    const auto r = run_child(c, 60, false, nullptr);
    if (r.exit_status != 0)
      throw std::runtime_error("knob command failed (" +
                               (r.error.empty() ? "exit " + std::to_string(r.exit_status) : r.error) +
                               "): " + shell_join(c));
  }
}

// Restores everything the journal saved; appends "restored" saying exactly which files were
// put back and which were skipped (and why).
RestoreResult restore_all(Journal& journal, const std::vector<FileWrite>& originals,
                          const std::vector<Argv>& commands) {
  RealSysfs io;
  auto r = restore_files(io, originals);
  for (const auto& c : commands) {
    const auto res = run_child(c, 60, false, nullptr);
    if (res.exit_status != 0) r.errors.push_back("restore command failed: " + shell_join(c));
  }
  nlohmann::json skipped = nlohmann::json::array();
  for (const auto& k : r.skipped) skipped.push_back({{"path", k.path}, {"reason", k.reason}});
  journal.append({{"type", "restored"}, {"utc", utc_now()}, {"files", r.restored.size()},
                  {"skipped", skipped}, {"errors", r.errors}});
  return r;
}

void print_plan(const SweepSpec& spec, const KnobSet& knobs, const Plan& plan, const SweepOptions& opt,
                const std::string& dir) {
  const bool emu = spec.emulation.has_value();
  const std::string tag = emu ? "  [EMULATED]" : "";
  fmt::print("hpcsens sweep plan (dry run: nothing is changed){}\n", tag);
  fmt::print("spec: {}\noutput: {}\nknobs: {}\n", spec.source, dir, knobs.describe());
  if (emu) {
    const auto& e = *spec.emulation;
    fmt::print("EMULATED ground truth: W_cpu={} Gcycles, W_mem={} GB, T_io={} s, overlap={}, noise={}%, seed={}\n",
               num(e.w_cpu), num(e.w_mem), num(e.t_io), num(e.overlap), num(e.noise_pct), e.seed);
  }
  fmt::print("points ({}):\n", plan.points.size());
  for (const auto& p : plan.points) {
    std::string extra;
    if (p.memory) {
      const auto& m = spec.memory[*p.memory];
      if (!m.manual.empty()) extra = "  (manual step: " + m.manual + ")";
      if (m.emulated_gbs) extra += "  (EMULATED " + num(*m.emulated_gbs) + " GB/s)";
    }
    fmt::print("  p{:02d}  {}{}\n", p.index, p.label, extra);
  }
  fmt::print("runs: {} = {} points x {} repetitions, order {}{}, retries {}, timeout {}\n", plan.runs.size(),
             plan.points.size(), spec.repetitions, spec.randomized ? "randomized, seed " : "sequential",
             spec.randomized ? std::to_string(spec.seed) : "", spec.retries,
             spec.timeout_s > 0 ? num(spec.timeout_s) + " s" : "none");
  const auto saved = knobs.files_to_save();
  // The same classification the restore will make, from the values the sweep would save now.
  std::vector<RestoreSkip> skips;
  try {
    skips = restore_skips(save_files(DryRunSysfs(), saved));
  } catch (const std::exception& e) {
    fmt::print("knob files: {}\n", e.what());
  }
  auto skip_of = [&](const std::string& f) {
    return std::find_if(skips.begin(), skips.end(), [&](const RestoreSkip& k) { return k.path == f; });
  };
  if (saved.empty())
    fmt::print("knob files saved to the journal before the first change: none (no sysfs knob is written)\n");
  else
    fmt::print("knob files saved to the journal before the first change, restored at the end ({} files{}):\n",
               saved.size(), skips.empty() ? "" : fmt::format("; {} restored, {} skipped", saved.size() - skips.size(), skips.size()));
  for (const auto& f : saved) {
    const auto k = skip_of(f);
    if (k == skips.end()) fmt::print("  {}\n", f);
    else fmt::print("  {}  (not restored: {})\n", f, k->reason);
  }
  fmt::print("output files: {0}/{1} (journal), {0}/records/<run id>.json, {0}/results.csv{2}\n", dir,
             kJournalName, opt.run_fit ? ", " + dir + "/model.json" : "");
  for (const auto& c : knobs.restore_commands()) fmt::print("restore command: {}\n", shell_join(c));

  DryRunSysfs io;
  int current = -1;
  int n = 0;
  for (const auto& r : plan.runs) {
    const auto& p = plan.points[std::size_t(r.point)];
    fmt::print("{:4d}. {}  {}{}\n", ++n, r.id, p.label, emu ? "  EMULATED" : "");
    if (r.point != current) {
      current = r.point;
      std::vector<Argv> cmds;
      try {
        cmds = knobs.apply(io, p);
      } catch (const std::exception& e) {
        fmt::print("        knob error: {}\n", e.what());
      }
      for (const auto& w : io.take_writes()) fmt::print("        write {} <- {}\n", w.path, w.value);
      for (const auto& c : cmds) fmt::print("        run   {}\n", shell_join(c));
      if (p.memory && !spec.memory[*p.memory].manual.empty())
        fmt::print("        manual step: {}\n", spec.memory[*p.memory].manual);
      if (!emu && (spec.calibration.stream || spec.calibration.clock)) {
        Argv cal;
        try {
          cal = spec.calibration.launcher.empty()
                    ? launcher_prefix(knobs.job_argv(spec.command, p), spec.calibration.ranks.value_or(0))
                    : spec.calibration.launcher;
        } catch (const std::exception& e) {
          fmt::print("        calibration error: {}\n", e.what());
        }
        cal.push_back(opt.stream_exe);
        fmt::print("        calibrate {}\n", shell_join(cal));
      }
    }
    if (!emu) fmt::print("        command {}\n", shell_join(knobs.job_argv(spec.command, p)));
  }
}

struct Outcome {
  bool ok = false;
  std::string error;
  int exit_status = 0;
  bool timed_out = false;
};

// Puts the sweep's configuration into the record (whatever the run module already merged),
// then moves it to records/<id>.json.
void finalize_record(const std::string& from, const std::string& to, const nlohmann::json& config) {
  auto rec = record::load_run_record(from);
  for (auto it = config.begin(); it != config.end(); ++it) rec.config[it.key()] = it.value();
  std::string err;
  if (!record::write_json_atomic(to, record::to_json(rec), &err)) throw std::runtime_error(err);
  if (from != to) fs::remove(from);
}

void print_summary(const SweepSpec& spec, const Plan& plan, const std::string& dir, const JournalState& st) {
  const bool emu = spec.emulation.has_value();
  struct Agg {
    int n = 0;
    double min = 1e300, max = 0, cpu = 0, mem = 0;
    std::vector<double> times;  // the median is shown: the same statistic hpcsens fit uses
    std::string cpu_src;
  };
  std::map<int, Agg> agg;
  int small_stream = 0;  // STREAM arrays below 4x LLC: the cache inflates mem_gbs
  std::ofstream csv(dir + "/results.csv");
  csv << "label,cpu_ghz,mem_gbs,time_s,run_id,emulated\n";
  for (const auto& r : plan.runs) {
    if (!st.done.count(r.id)) continue;
    try {
      const auto rec = record::load_run_record(dir + "/records/" + r.id + ".json");
      auto& a = agg[r.point];
      const double t = rec.timing.job_s;
      ++a.n;
      a.times.push_back(t);
      a.min = std::min(a.min, t);
      a.max = std::max(a.max, t);
      a.cpu += rec.config.value("cpu_ghz", 0.0);
      a.mem += rec.config.value("mem_gbs", 0.0);
      a.cpu_src = rec.config.value("cpu_ghz_source", "");
      const auto stream = rec.config.find("stream");
      if (stream != rec.config.end() && stream->is_object() && stream->value("meets_4x_llc", true) == false)
        ++small_stream;
      csv << plan.points[std::size_t(r.point)].label << ',' << rec.config.value("cpu_ghz", 0.0) << ','
          << rec.config.value("mem_gbs", 0.0) << ',' << t << ',' << r.id << ',' << (rec.emulated ? 1 : 0) << '\n';
    } catch (const std::exception& e) {
      fmt::print(stderr, "hpcsens sweep: warning: {}\n", e.what());
    }
  }
  fmt::print("\nSweep summary{}: {} of {} runs done, {} skipped after {} retries\n", emu ? " (EMULATED)" : "",
             st.done.size(), plan.runs.size(), st.skipped.size(), spec.retries);
  fmt::print("{:<28} {:>9} {:>10} {:>9} {:>3} {:>10} {:>10} {:>10}{}\n", "point", "cpu_ghz", "source",
             "mem_gbs", "n", "median_s", "min_s", "max_s", emu ? "  " : "");
  for (const auto& p : plan.points) {
    auto it = agg.find(p.index);
    if (it == agg.end()) {
      fmt::print("{:<28} {:>9} {:>10} {:>9} {:>3}{}\n", p.label, "-", "-", "-", 0, emu ? "  EMULATED" : "");
      continue;
    }
    auto& a = it->second;
    std::sort(a.times.begin(), a.times.end());
    const std::size_t m = a.times.size() / 2;
    const double median = a.times.size() % 2 ? a.times[m] : 0.5 * (a.times[m - 1] + a.times[m]);
    fmt::print("{:<28} {:>9.3f} {:>10} {:>9.2f} {:>3} {:>10.4f} {:>10.4f} {:>10.4f}{}\n", p.label, a.cpu / a.n,
               a.cpu_src, a.mem / a.n, a.n, median, a.min, a.max, emu ? "  EMULATED" : "");
  }
  if (small_stream > 0)
    fmt::print("warning: {} records have STREAM arrays not shown to be >= 4x the last-level cache "
               "(config.stream.meets_4x_llc: false), so mem_gbs may include cache bandwidth; raise "
               "calibration.stream_array_mb\n", small_stream);
  fmt::print("records: {}/records   journal: {}/{}   table: {}/results.csv\n", dir, dir, kJournalName, dir);
}

}  // namespace

void install_stop_handlers() {
  struct sigaction sa{};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: a blocking wait returns and sees the flag
  for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaction(s, &sa, nullptr);
}

int stop_signal() { return g_stop; }

int run_sweep(const SweepSpec& spec, const SweepOptions& opt) {
  const std::string dir = opt.out_dir.empty() ? spec.output_dir : opt.out_dir;
  const bool emu = spec.emulation.has_value();
  if (!emu && !opt.dry_run && !opt.run_job)
    throw std::runtime_error("real runs need the `hpcsens run` module, which is not available in this build");

  // Probing reads sysfs only; nothing is written before the originals are in the journal.
  RealSysfs real_io;
  KnobSet knobs(spec, real_io);
  const Plan plan = make_plan(spec, knobs.cpu_values());

  if (opt.dry_run) {
    print_plan(spec, knobs, plan, opt, dir);
    return 0;
  }

  const std::string journal_path = dir + "/" + kJournalName;
  JournalState st;
  if (fs::exists(journal_path)) {
    if (!opt.resume)
      throw InputError(dir, "already holds a sweep journal; use --resume " + dir + " to continue it, or another output directory");
    st = replay_journal(read_journal_lines(journal_path));
    if (st.header && st.header->value("runs", std::vector<std::string>{}) != plan_ids(plan))
      throw InputError(spec.source, "the plan differs from the one journalled in " + journal_path +
                                        " (spec changed since the sweep started); resume with the same spec");
  } else if (opt.resume) {
    throw InputError(dir, "has no sweep journal to resume");
  }
  // The records are the results, the journal only says what happened: a run the journal calls
  // done whose record is gone or unreadable (deleted, truncated, disk lost) is run again.
  std::vector<std::pair<std::string, std::string>> lost;
  for (const auto& r : plan.runs) {
    if (!st.done.count(r.id)) continue;
    const std::string path = dir + "/records/" + r.id + ".json";
    std::string why;
    if (!fs::exists(path)) why = "record " + path + " is missing";
    else if (!record_readable(path)) why = "record " + path + " is unreadable";
    if (why.empty()) continue;
    st.done.erase(r.id);
    st.failed_attempts.erase(r.id);
    lost.emplace_back(r.id, why);
  }
  std::error_code ec;
  fs::create_directories(dir + "/records", ec);
  fs::create_directories(dir + "/attempts", ec);
  if (ec) throw InputError(dir, "cannot create the output directory: " + ec.message());

  Journal journal(dir);
  if (!st.header) {
    nlohmann::json pts = nlohmann::json::array();
    for (const auto& p : plan.points) pts.push_back(point_json(p, spec));
    journal.append({{"type", "header"}, {"utc", utc_now()}, {"spec", fs::absolute(spec.source).string()},
                    {"emulated", emu}, {"seed", spec.seed}, {"randomized", spec.randomized},
                    {"repetitions", spec.repetitions}, {"points", pts}, {"runs", plan_ids(plan)}});
  } else {
    journal.append({{"type", "resumed"}, {"utc", utc_now()}, {"done", st.done.size()}});
  }
  for (const auto& [id, why] : lost) {
    journal.append({{"type", "lost"}, {"utc", utc_now()}, {"id", id}, {"reason", why}});
    fmt::print(stderr, "hpcsens sweep: {} was journalled as done but its {}; running it again\n", id, why);
  }

  install_stop_handlers();

  // In a multi-node Slurm allocation machine knobs must change on every node: one task per node
  // applies each point (saving that node's originals under nodes/<host>/) and restores at the end.
  const int nnodes = slurm_nnodes();
  const bool per_node = nnodes > 1 && knobs.changes_machine() && !emu;
  const std::string spec_abs = fs::absolute(spec.source).string();

  // Save every original knob value before the first change. On resume the first save stays the
  // truth: the current values may be the sweep's own (after a kill -9).
  std::vector<FileWrite> originals = st.originals;
  std::vector<Argv> restore_cmds = st.restore_commands;
  if (knobs.changes_machine() && !st.has_originals) {
    if (per_node) {
      restore_cmds = {per_node_restore_command(nnodes, opt.hpcsens_exe, fs::absolute(dir).string())};
    } else {
      originals = save_files(real_io, knobs.files_to_save());
      restore_cmds = knobs.restore_commands();
    }
    nlohmann::json files = nlohmann::json::array();
    for (const auto& f : originals) files.push_back({{"path", f.path}, {"value", f.value}});
    journal.append({{"type", "originals"}, {"utc", utc_now()}, {"files", files}, {"commands", restore_cmds}});
  }

  if (emu) fmt::print(stderr, "hpcsens sweep: EMULATED launcher: records are computed from the spec's ground truth, not measured\n");
  if (!emu && !spec.calibration.stream)
    fmt::print(stderr, "hpcsens sweep: warning: calibration.stream is off, records will carry no mem_gbs\n");

  int done = 0;
  for (const auto& r : plan.runs) done += st.done.count(r.id) || st.skipped.count(r.id);
  Progress progress(int(plan.runs.size()), done, emu);
  bool knobs_touched = st.knobs_dirty;
  int current_point = -1;
  std::optional<int> current_memory;
  nlohmann::json calibration;
  std::string failure;
  std::exception_ptr input_error;  // bad input found mid-sweep: exit 2, after restoring

  try {
    for (const auto& run : plan.runs) {
      if (g_stop) break;
      if (st.done.count(run.id) || st.skipped.count(run.id)) continue;
      // A run whose record landed but whose journal line did not (killed in between) is done.
      const std::string final_path = dir + "/records/" + run.id + ".json";
      if (record_readable(final_path)) {
        journal.append({{"type", "run"}, {"id", run.id}, {"status", "ok"}, {"record", final_path}, {"recovered", true}});
        st.done.insert(run.id);
        progress.update(++done, run.id + " (found)");
        continue;
      }
      const Point& p = plan.points[std::size_t(run.point)];
      int attempt = st.failed_attempts[run.id];
      bool ok = false;
      while (!ok && attempt <= spec.retries && !g_stop) {
        ++attempt;
        progress.update(done, run.id + " " + p.label + (attempt > 1 ? " attempt " + std::to_string(attempt) : ""), false);
        Outcome out;
        try {
          if (run.point != current_point) {
            if (p.memory && p.memory != current_memory && !spec.memory[*p.memory].manual.empty() && !emu) {
              fmt::print(stderr, "\nhpcsens sweep: manual step for memory configuration '{}': {}\n"
                                 "press Enter when done (end of input stops the sweep)\n",
                         spec.memory[*p.memory].name, spec.memory[*p.memory].manual);
              std::string line;
              if (!std::getline(std::cin, line))
                throw std::runtime_error("manual step for '" + spec.memory[*p.memory].name + "' was not confirmed");
            }
            journal.append({{"type", "apply"}, {"utc", utc_now()}, {"point", point_json(p, spec)}});
            knobs_touched = true;
            if (per_node)
              run_commands({per_node_apply_command(nnodes, opt.hpcsens_exe, spec_abs, p.index, fs::absolute(dir).string())});
            else
              run_commands(knobs.apply(real_io, p));
            current_point = run.point;
            current_memory = p.memory;
            calibration = nlohmann::json::object();
          }
          nlohmann::json config = point_json(p, spec);
          config["label"] = p.label;
          config["sweep_point"] = p.index;
          config["repetition"] = run.repetition;
          config["sweep_run_id"] = run.id;
          config.erase("point");
          if (emu) {
            const double cpu = *p.cpu_ghz;
            const double mem = p.memory ? *spec.memory[*p.memory].emulated_gbs : *spec.emulation->mem_gbs;
            const auto rec = make_emulated_record(spec, run.id, cpu, mem, config);
            std::string err;
            if (!record::write_json_atomic(final_path, record::to_json(rec), &err)) throw std::runtime_error(err);
            out.ok = true;
          } else {
            const Argv job = knobs.job_argv(spec.command, p);
            if (calibration.empty()) {
              const Argv launcher = spec.calibration.launcher.empty()
                                        ? launcher_prefix(job, spec.calibration.ranks.value_or(0))
                                        : spec.calibration.launcher;
              auto cal = calibrate(spec, launcher, opt.stream_exe, p.cpu_ghz, &g_stop);
              if (!cal.error.empty()) throw std::runtime_error(cal.error);
              calibration = cal.config;
            }
            for (auto it = calibration.begin(); it != calibration.end(); ++it) config[it.key()] = it.value();
            run::RunRequest req;
            req.argv = job;
            req.out_dir = dir + "/attempts";
            req.events = spec.events;
            req.config = config;
            req.timeout_s = spec.timeout_s;
            req.run_id = run.id + "-a" + std::to_string(attempt);
            const run::RunResult res = run_isolated(opt.run_job, req);
            out.exit_status = res.exit_status;
            out.timed_out = res.timed_out;
            if (g_stop) out.error = "stopped by signal " + std::to_string(g_stop);
            else if (res.timed_out) out.error = "timed out after " + num(spec.timeout_s) + " s";
            else if (res.exit_status != 0) out.error = "job exit status " + std::to_string(res.exit_status);
            else if (res.record_path.empty()) out.error = res.error.empty() ? "no run record was written" : res.error;
            if (out.error.empty()) {
              finalize_record(res.record_path, final_path, config);
              out.ok = true;
            } else if (!res.error.empty() && out.error != res.error) {
              out.error += " (" + res.error + ")";
            }
          }
        } catch (const std::exception& e) {
          if (dynamic_cast<const InputError*>(&e)) throw;
          out.error = e.what();
          current_point = -1;  // re-apply and re-calibrate on the next attempt
        }
        if (g_stop && !out.ok) break;  // an interrupted attempt is not a failure of the job
        nlohmann::json line = {{"type", "run"}, {"id", run.id}, {"attempt", attempt}, {"utc", utc_now()},
                               {"status", out.ok ? "ok" : "failed"}};
        if (out.ok) line["record"] = final_path;
        else line.update({{"error", out.error}, {"exit_status", out.exit_status}, {"timed_out", out.timed_out}});
        journal.append(line);
        if (out.ok) {
          ok = true;
          st.done.insert(run.id);
        } else {
          fmt::print(stderr, "\nhpcsens sweep: {} attempt {} failed: {}\n", run.id, attempt, out.error);
        }
      }
      if (g_stop) break;
      if (!ok) {
        journal.append({{"type", "skipped"}, {"id", run.id}, {"attempts", attempt}});
        st.skipped.insert(run.id);
        fmt::print(stderr, "hpcsens sweep: {} skipped after {} attempts; the sweep goes on\n", run.id, attempt);
      }
      progress.update(++done, run.id + " " + p.label + (ok ? " ok" : " skipped"));
    }
  } catch (const InputError& e) {
    failure = e.what();
    input_error = std::current_exception();
  } catch (const std::exception& e) {
    failure = e.what();
  }
  progress.finish();

  if (knobs_touched && (!originals.empty() || !restore_cmds.empty())) {
    const auto r = restore_all(journal, originals, restore_cmds);
    fmt::print(stderr, "hpcsens sweep: {}\n", restore_summary(r));
    for (const auto& e : r.errors) fmt::print(stderr, "hpcsens sweep: RESTORE FAILED: {}\n", e);
  }
  if (g_stop) {
    const int sig = g_stop;
    journal.append({{"type", "stopped"}, {"utc", utc_now()}, {"signal", sig}});
    fmt::print(stderr, "hpcsens sweep: stopped by signal {}; knobs restored; continue with: hpcsens sweep --resume {}\n",
               sig, dir);
    return 128 + sig;
  }
  if (!failure.empty()) {
    journal.append({{"type", "error"}, {"utc", utc_now()}, {"error", failure}});
    if (input_error) std::rethrow_exception(input_error);
    fmt::print(stderr, "hpcsens sweep: error: {}\n", failure);
    return 1;
  }
  journal.append({{"type", "finished"}, {"utc", utc_now()}, {"done", st.done.size()}, {"skipped", st.skipped.size()}});
  print_summary(spec, plan, dir, st);
  if (opt.run_fit && !opt.hpcsens_exe.empty() && !st.done.empty()) {
    fmt::print("\nhpcsens fit {}/records -o {}/model.json{}\n", dir, dir, emu ? "   (EMULATED records)" : "");
    std::fflush(stdout);
    const auto fit = run_child({opt.hpcsens_exe, "fit", dir + "/records", "-o", dir + "/model.json"}, 0, false, nullptr);
    if (fit.exit_status != 0)
      fmt::print(stderr, "hpcsens sweep: warning: hpcsens fit exited with status {}; the records are in {}/records\n",
                 fit.exit_status, dir);
  }
  return st.skipped.empty() ? 0 : 1;
}

int restore_from_journal(const std::string& dir) {
  // A multi-node sweep keeps each node's originals under nodes/<host>/.
  char host[256] = "localhost";
  ::gethostname(host, sizeof host - 1);
  const std::string node_dir = dir + "/nodes/" + host;
  int node_status = 0;
  // One node's task of the per-node restore restores that node only: the main journal's restore
  // command is the srun that started this task, so running it again would recurse.
  if (const char* v = std::getenv(kNodeTaskEnv); v != nullptr && *v != '\0') {
    ::unsetenv(kNodeTaskEnv);
    return fs::exists(node_dir + "/" + kJournalName) ? restore_from_journal(node_dir) : 0;
  }
  if (fs::exists(node_dir + "/" + kJournalName)) node_status = restore_from_journal(node_dir);
  const std::string path = dir + "/" + kJournalName;
  if (!fs::exists(path)) {
    if (fs::exists(node_dir)) return node_status;
    throw InputError(dir, "has no sweep journal (" + std::string(kJournalName) + ")");
  }
  const auto st = replay_journal(read_journal_lines(path));
  if (!st.has_originals) {
    fmt::print(stderr, "hpcsens sweep: {} saved no knob values; nothing to restore\n", dir);
    return node_status;
  }
  Journal journal(dir);
  const auto r = restore_all(journal, st.originals, st.restore_commands);
  for (const auto& f : r.restored) fmt::print(stderr, "restored {} = {}\n", f.path, f.value);
  for (const auto& k : r.skipped) fmt::print(stderr, "skipped {}: {}\n", k.path, k.reason);
  fmt::print(stderr, "hpcsens sweep: {}\n", restore_summary(r));
  for (const auto& e : r.errors) fmt::print(stderr, "hpcsens sweep: RESTORE FAILED: {}\n", e);
  return r.errors.empty() && node_status == 0 ? 0 : 1;
}

int apply_point_here(const SweepSpec& spec, int point, const std::string& dir) {
  RealSysfs io;
  KnobSet knobs(spec, io);
  const Plan plan = make_plan(spec, knobs.cpu_values());
  if (point < 0 || point >= int(plan.points.size()))
    throw InputError("--apply-point", "no point " + std::to_string(point) + " (the plan has " +
                                          std::to_string(plan.points.size()) + ")");
  char host[256] = "localhost";
  ::gethostname(host, sizeof host - 1);
  const std::string node_dir = dir + "/nodes/" + host;
  fs::create_directories(node_dir);
  Journal journal(node_dir);
  const auto st = replay_journal(read_journal_lines(journal.path()));
  if (!st.has_originals) {
    nlohmann::json files = nlohmann::json::array();
    for (const auto& f : save_files(io, knobs.files_to_save())) files.push_back({{"path", f.path}, {"value", f.value}});
    journal.append({{"type", "originals"}, {"utc", utc_now()}, {"files", files}, {"commands", knobs.restore_commands()}});
  }
  const auto& p = plan.points[std::size_t(point)];
  journal.append({{"type", "apply"}, {"utc", utc_now()}, {"point", point_json(p, spec)}});
  run_commands(knobs.apply(io, p));
  return 0;
}

}  // namespace hpcsens::sweep
