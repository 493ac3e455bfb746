#include "sweep/execute/executor.h"

#include <filesystem>

#include <fmt/core.h>

#include "common/errors.h"
#include "common/text_escape.h"
#include "energy/energy_totals.h"
#include "record/run_record.h"
#include "sweep/calibrate/calibrate.h"
#include "sweep/calibrate/clock_watch.h"
#include "sweep/execute/emulated.h"
#include "sweep/execute/resctrl_join.h"
#include "sweep/process/stop.h"
#include "sweep/spec/sweep_common.h"
#include "sweep/calibrate/net_calibrate.h"

namespace hpcsens::sweep {
namespace {

void write_record(const Session& s, const std::string& name, const record::RunRecord& rec) {
  // Records are serialised the way the run module writes them (one-space indent).
  std::string text;
  try {
    text = record::to_json(rec).dump(1) + "\n";
  } catch (const std::exception& e) {
    throw std::runtime_error("cannot serialise record " + s.records.child(name) + ": " + e.what());
  }
  if (auto err = safe_file::write_atomic(s.records, name, text); !err.empty())
    throw std::runtime_error("cannot write record " + s.records.child(name) + " (" + err + ")");
}

class EmulatedExecutor : public Executor {
 public:
  EmulatedExecutor(const SweepSpec& spec, const Session& s) : spec_(spec), session_(s) {}
  Outcome run(const Attempt& a) override {
    const double cpu = *a.point.cpu_ghz;
    const double mem = a.point.memory ? *spec_.memory[std::size_t(*a.point.memory)].emulated_gbs : *spec_.emulation->mem_gbs;
    write_record(session_, a.final_name, make_emulated_record(spec_, a.run.id, cpu, mem, a.config));
    Outcome out;
    out.ok = true;
    return out;
  }

 private:
  const SweepSpec& spec_;
  const Session& session_;
};

// Journals the identity of a forked run module. A full disk must not leave the fork unwaited:
// the failure is said and the attempt goes on.
void journal_child(Journal* journal, int pid) {
  if (journal == nullptr) return;
  const ProcessIdentity id = identify_process(pid);
  if (id.pid == 0) return;  // already gone
  try {
    journal->append({{"type", "child"}, {"pid", id.pid}, {"start", id.start_ticks}, {"boot", id.boot_id}});
  } catch (const std::exception& e) {
    fmt::print(stderr, "hpcsens sweep: warning: {} (the run module's pid {} is not journalled)\n",
               text::escape_for_message(e.what()), pid);
  }
}

class MeasuredExecutor : public Executor {
 public:
  MeasuredExecutor(const SweepSpec& spec, const KnobSet& knobs, const SweepOptions& opt, Session& s, Journal* j)
      : spec_(spec), knobs_(knobs), opt_(opt), session_(s), journal_(j), joins_(spec, knobs, opt.hpcsens_exe, s) {}
  void new_point() override { calibration_ = nlohmann::json(); }

  Outcome run(const Attempt& a) override {
    const Argv job = knobs_.job_argv(spec_.command, a.point);
    const std::string run_id = a.run.id + "-a" + std::to_string(a.number);
    nlohmann::json config = a.config;
    const nlohmann::json& cal = calibration(job, a.point, run_id + "-cal");
    for (auto it = cal.begin(); it != cal.end(); ++it) config[it.key()] = it.value();
    run::RunRequest req;
    req.argv = joins_.launch(job, a.point, run_id);
    req.rank_env = knobs_.rank_env(a.point);
    req.out_dir = session_.attempts;
    req.events = spec_.events;
    req.config = config;
    req.timeout_s = spec_.timeout_s;
    req.run_id = run_id;
    const run::RunResult res = run_isolated(opt_.run_job, req, [this](int pid) { journal_child(journal_, pid); });
    Outcome out;
    out.exit_status = res.exit_status;
    out.timed_out = res.timed_out;
    if (stop_signal()) out.error = "stopped by signal " + std::to_string(stop_signal());
    else if (res.timed_out) out.error = "timed out after " + num(spec_.timeout_s) + " s";
    else if (res.exit_status != 0) out.error = "job exit status " + std::to_string(res.exit_status);
    else if (res.record_path.empty()) out.error = res.error.empty() ? "no run record was written" : res.error;
    if (out.error.empty()) {
      if (const auto in_group = joins_.check(res.record_path, a.point, run_id); !in_group.empty())
        config["mem_bw_hosts_in_group"] = in_group;
      finalize(res.record_path, a.final_name, config);
      out.ok = true;
    } else if (!res.error.empty() && out.error != res.error) {
      out.error += " (" + res.error + ")";
    }
    return out;
  }

 private:
  const nlohmann::json& calibration(const Argv& job, const Point& p, const std::string& key) {
    if (!calibration_.is_null()) return calibration_;
    const Argv launcher = joins_.launch(spec_.calibration.launcher.empty()
                                            ? launcher_prefix(job, spec_.calibration.ranks.value_or(0))
                                            : spec_.calibration.launcher,
                                        p, key);
    const nlohmann::json set = knobs_.set_values(p);
    std::optional<double> set_ghz;
    if (set.contains("cpu_ghz_set")) set_ghz = set["cpu_ghz_set"].get<double>();
    auto cal = calibrate(spec_, launcher, opt_.stream_exe, p.cpu_ghz, set_ghz, stop_flag());
    if (!cal.error.empty()) throw std::runtime_error(cal.error);
    calibration_ = cal.config;
    for (auto it = set.begin(); it != set.end(); ++it) calibration_[it.key()] = it.value();
    watch_clock(p);
    return calibration_;
  }
  // Says at once when the clock knob shows no effect on this node (clock_watch.h).
  void watch_clock(const Point& p) {
    const auto& c = calibration_;
    const char* set_key = c.contains("cpu_ghz_set") ? "cpu_ghz_set" : "cpu_ghz_requested";
    if (!c.contains(set_key) || !c.contains("cpu_ghz_measured") || !c[set_key].is_number() ||
        !c["cpu_ghz_measured"].is_number())
      return;
    const auto note = clock_watch_.add(p.label, c[set_key].get<double>(), c["cpu_ghz_measured"].get<double>());
    if (note.empty()) return;
    fmt::print(stderr, "\nhpcsens sweep: WARNING (checked on this node after point {}): {}\n",
               text::escape_for_message(p.label), text::escape_for_message(note));
    if (journal_ == nullptr) return;
    try {
      journal_->append({{"type", "warning"}, {"utc", utc_now()}, {"point", p.index}, {"text", note}});
    } catch (const std::exception& e) {
      fmt::print(stderr, "hpcsens sweep: warning: {}\n", text::escape_for_message(e.what()));
    }
  }
  // Puts the sweep's configuration into the record (whatever the run module already merged),
  // then moves it to records/.
  void finalize(const std::string& from, const std::string& name, const nlohmann::json& config) {
    auto rec = record::load_run_record(from);
    for (auto it = config.begin(); it != config.end(); ++it) rec.config[it.key()] = it.value();
    add_network_rates(rec.config, achieved_factor(rec.extra.value("preload", nlohmann::json())));
    // Only the node the run module ran on is read: the record names every other host as not measured.
    if (auto e = rec.extra.find("energy"); e != rec.extra.end()) energy::mark_unmeasured_hosts(*e, rec.job.hosts);
    write_record(session_, name, rec);
    std::error_code ec;
    std::filesystem::remove(from, ec);
  }

  const SweepSpec& spec_;
  const KnobSet& knobs_;
  const SweepOptions& opt_;
  Session& session_;
  Journal* journal_;
  GroupJoins joins_;
  nlohmann::json calibration_;
  ClockWatch clock_watch_;
};

}  // namespace

std::unique_ptr<Executor> make_executor(const SweepSpec& spec, const KnobSet& knobs, const SweepOptions& opt,
                                        Session& session, Journal* journal) {
  if (spec.emulation) return std::make_unique<EmulatedExecutor>(spec, session);
  return std::make_unique<MeasuredExecutor>(spec, knobs, opt, session, journal);
}

}  // namespace hpcsens::sweep
