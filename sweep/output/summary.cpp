#include "sweep/output/summary.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/core.h>

#include "common/text_escape.h"
#include "energy/energy_totals.h"
#include "record/run_record.h"

namespace hpcsens::sweep {
namespace {

struct Agg {
  int n = 0;
  double min = 1e300, max = 0, cpu = 0, mem = 0, net_lat = 0, net_byte = 0;
  int mem_n = 0, net_n = 0;  // runs that measured memory bandwidth (STREAM on), the network
  std::vector<double> times;  // the median is shown: the same statistic hpcsens fit uses
  std::string cpu_src;
  double requested = 0, measured = 0;
  int measured_n = 0;
  std::string against = "requested";
  double joules = 0, watts = 0;  // RAPL package + DRAM, over the runs whose energy was read
  int energy_n = 0;
};

// What the table's energy columns leave unsaid, once per sweep: why a run has none, which hosts
// no reader measured, and that emulated energy is computed.
struct EnergyNotes {
  std::string reason;
  std::set<std::string> unmeasured;
  bool emulated = false;
};

std::optional<double> number_in(const nlohmann::json& config, const char* key) {
  const auto it = config.find(key);
  if (it == config.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

// A mean, or "-" where no run measured it (STREAM off; no network knob), never a made-up 0.
std::string mean_or_dash(double sum, int n, int decimals) {
  return n > 0 ? fmt::format("{:.{}f}", sum / n, decimals) : "-";
}

std::string csv_number(const std::optional<double>& v) { return v ? fmt::format("{}", *v) : ""; }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

energy::Totals add_energy(Agg& a, const record::RunRecord& rec, EnergyNotes& notes) {
  const auto it = rec.extra.find("energy");
  const energy::Totals e = energy::energy_totals(it == rec.extra.end() ? nlohmann::json() : *it);
  if (e.available) a.joules += e.joules, a.watts += e.mean_w, ++a.energy_n;
  else if (notes.reason.empty()) notes.reason = e.reason.empty() ? "the records have no energy section" : e.reason;
  notes.unmeasured.insert(e.not_measured.begin(), e.not_measured.end());
  notes.emulated = notes.emulated || e.source == "emulated";
  return e;
}

void add(Agg& a, const record::RunRecord& rec) {
  const double t = rec.timing.job_s;
  ++a.n;
  a.times.push_back(t);
  a.min = std::min(a.min, t);
  a.max = std::max(a.max, t);
  a.cpu += rec.config.value("cpu_ghz", 0.0);
  if (const auto m = number_in(rec.config, "mem_gbs")) a.mem += *m, ++a.mem_n;
  const auto nl = number_in(rec.config, "net_latency_us"), nb = number_in(rec.config, "net_ns_per_byte");
  if (nl && nb) a.net_lat += *nl, a.net_byte += *nb, ++a.net_n;
  a.cpu_src = rec.config.value("cpu_ghz_source", "");
  // The clock the driver was set to when the record says, else the request.
  auto req = rec.config.find("cpu_ghz_set");
  if (req == rec.config.end()) req = rec.config.find("cpu_ghz_requested");
  else a.against = "set";
  const auto meas = rec.config.find("cpu_ghz_measured");
  if (req != rec.config.end() && req->is_number() && meas != rec.config.end() && meas->is_number()) {
    a.requested = req->get<double>();
    a.measured += meas->get<double>();
    ++a.measured_n;
  }
}

void print_table(const SweepSpec& spec, const Plan& plan, std::map<int, Agg>& agg) {
  const bool emu = spec.emulation.has_value(), net = !spec.network.empty();
  fmt::print("{:<28} {:>9} {:>10} {:>9} {:>3} {:>10} {:>10} {:>10}{} {:>10} {:>8}{}\n", "point", "cpu_ghz", "source",
             "mem_gbs", "n", "median_s", "min_s", "max_s", net ? fmt::format(" {:>10} {:>10}", "net_lat_us", "net_ns/B") : "",
             "energy_J", "mean_W", emu ? "  " : "");
  for (const auto& p : plan.points) {
    auto it = agg.find(p.index);
    if (it == agg.end()) {
      fmt::print("{:<28} {:>9} {:>10} {:>9} {:>3}{}\n", p.label, "-", "-", "-", 0, emu ? "  EMULATED" : "");
      continue;
    }
    const auto& a = it->second;
    fmt::print("{:<28} {:>9.3f} {:>10} {:>9} {:>3} {:>10.4f} {:>10.4f} {:>10.4f}{} {:>10} {:>8}{}\n", p.label,
               a.cpu / a.n, a.cpu_src, mean_or_dash(a.mem, a.mem_n, 2), a.n, median(a.times), a.min, a.max,
               net ? fmt::format(" {:>10} {:>10}", mean_or_dash(a.net_lat, a.net_n, 2), mean_or_dash(a.net_byte, a.net_n, 4))
                   : "",
               mean_or_dash(a.joules, a.energy_n, 1), mean_or_dash(a.watts, a.energy_n, 1), emu ? "  EMULATED" : "");
  }
  std::vector<std::pair<double, double>> asked_got;  // per measured point: set (or requested), measured
  for (const auto& p : plan.points) {
    auto it = agg.find(p.index);
    if (it != agg.end() && it->second.measured_n > 0)
      asked_got.push_back({it->second.requested, it->second.measured / it->second.measured_n});
  }
  if (auto note = clock_did_not_move_note(asked_got); !note.empty()) fmt::print("{}\n", note);
  for (const auto& p : plan.points) {
    auto it = agg.find(p.index);
    if (it == agg.end() || it->second.measured_n == 0) continue;
    const auto note = clock_mismatch_note(p.label, it->second.requested, it->second.measured / it->second.measured_n,
                                          it->second.against);
    if (!note.empty()) fmt::print("{}\n", note);
  }
}

void print_energy_notes(const EnergyNotes& n) {
  if (n.emulated)
    fmt::print("energy: EMULATED from the spec's power truth (emulated.power), read through the powercap reader; "
               "not measured\n");
  else
    fmt::print("energy: RAPL package + DRAM summed over the measured nodes, mean over the point's runs (RAPL covers no "
               "fans, PSU losses, disks or network)\n");
  if (!n.reason.empty()) fmt::print("energy: {}\n", text::escape_for_message(n.reason));
  std::string hosts;
  for (const auto& h : n.unmeasured) hosts += (hosts.empty() ? "" : ", ") + h;
  if (!hosts.empty())
    fmt::print("energy: not measured on {} (ranks ran there, but no counter agent there handed over the node's "
               "energy: --events none, or the agent did not start or answer)\n",
               text::escape_for_message(hosts));
}

}  // namespace

std::string write_summary(const SweepSpec& spec, const Plan& plan, const Session& s) {
  const bool emu = spec.emulation.has_value();
  const auto& st = s.state;
  std::map<int, Agg> agg;
  int small_stream = 0;  // STREAM arrays below 4x LLC: the cache inflates mem_gbs
  std::ostringstream csv;
  // Empty where a run measured nothing (mem_gbs with STREAM off, the network without its knob).
  // Energy: RAPL package + DRAM joules and mean watts; empty with energy_source none where not available.
  csv << "label,cpu_ghz,mem_gbs,time_s,run_id,emulated,net_latency_us,net_ns_per_byte,energy_j,mean_w,energy_source\n";
  EnergyNotes notes;
  for (const auto& r : plan.runs) {
    if (!st.done.count(r.id)) continue;
    try {
      const auto rec = record::load_run_record(s.records.child(r.id + ".json"));
      add(agg[r.point], rec);
      const energy::Totals e = add_energy(agg[r.point], rec, notes);
      const auto stream = rec.config.find("stream");
      if (stream != rec.config.end() && stream->is_object() && stream->value("meets_4x_llc", true) == false)
        ++small_stream;
      csv << plan.points[std::size_t(r.point)].label << ',' << rec.config.value("cpu_ghz", 0.0) << ','
          << csv_number(number_in(rec.config, "mem_gbs")) << ',' << rec.timing.job_s << ',' << r.id << ','
          << (rec.emulated ? 1 : 0) << ',' << csv_number(number_in(rec.config, "net_latency_us")) << ','
          << csv_number(number_in(rec.config, "net_ns_per_byte")) << ','
          << (e.available ? csv_number(e.joules) + ',' + csv_number(e.mean_w) + ',' + e.source : ",,none") << '\n';
    } catch (const std::exception& e) {
      fmt::print(stderr, "hpcsens sweep: warning: {}\n", e.what());
    }
  }
  const std::string csv_error = safe_file::write_atomic(s.fd, "results.csv", csv.str());
  fmt::print("\nSweep summary{}: {} of {} runs done, {} skipped after {} retries\n", emu ? " (EMULATED)" : "",
             st.done.size(), plan.runs.size(), st.skipped.size(), spec.retries);
  print_table(spec, plan, agg);
  print_energy_notes(notes);
  if (small_stream > 0)
    fmt::print("warning: {} records have STREAM arrays not shown to be >= 4x the last-level cache "
               "(config.stream.meets_4x_llc: false), so mem_gbs may include cache bandwidth; raise "
               "calibration.stream_array_mb\n", small_stream);
  fmt::print("records: {}/records   journal: {}/{}   table: {}/results.csv\n", s.dir, s.dir, kJournalName, s.dir);
  return csv_error;
}

}  // namespace hpcsens::sweep
