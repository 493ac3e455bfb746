#include "sweep/output/summary.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <sstream>

#include <fmt/core.h>

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
  fmt::print("{:<28} {:>9} {:>10} {:>9} {:>3} {:>10} {:>10} {:>10}{}{}\n", "point", "cpu_ghz", "source",
             "mem_gbs", "n", "median_s", "min_s", "max_s", net ? fmt::format(" {:>10} {:>10}", "net_lat_us", "net_ns/B") : "",
             emu ? "  " : "");
  for (const auto& p : plan.points) {
    auto it = agg.find(p.index);
    if (it == agg.end()) {
      fmt::print("{:<28} {:>9} {:>10} {:>9} {:>3}{}\n", p.label, "-", "-", "-", 0, emu ? "  EMULATED" : "");
      continue;
    }
    const auto& a = it->second;
    fmt::print("{:<28} {:>9.3f} {:>10} {:>9} {:>3} {:>10.4f} {:>10.4f} {:>10.4f}{}{}\n", p.label, a.cpu / a.n,
               a.cpu_src, mean_or_dash(a.mem, a.mem_n, 2), a.n, median(a.times), a.min, a.max,
               net ? fmt::format(" {:>10} {:>10}", mean_or_dash(a.net_lat, a.net_n, 2), mean_or_dash(a.net_byte, a.net_n, 4))
                   : "",
               emu ? "  EMULATED" : "");
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

}  // namespace

std::string write_summary(const SweepSpec& spec, const Plan& plan, const Session& s) {
  const bool emu = spec.emulation.has_value();
  const auto& st = s.state;
  std::map<int, Agg> agg;
  int small_stream = 0;  // STREAM arrays below 4x LLC: the cache inflates mem_gbs
  std::ostringstream csv;
  // Empty where a run measured nothing (mem_gbs with STREAM off, the network without its knob).
  csv << "label,cpu_ghz,mem_gbs,time_s,run_id,emulated,net_latency_us,net_ns_per_byte\n";
  for (const auto& r : plan.runs) {
    if (!st.done.count(r.id)) continue;
    try {
      const auto rec = record::load_run_record(s.records.child(r.id + ".json"));
      add(agg[r.point], rec);
      const auto stream = rec.config.find("stream");
      if (stream != rec.config.end() && stream->is_object() && stream->value("meets_4x_llc", true) == false)
        ++small_stream;
      csv << plan.points[std::size_t(r.point)].label << ',' << rec.config.value("cpu_ghz", 0.0) << ','
          << csv_number(number_in(rec.config, "mem_gbs")) << ',' << rec.timing.job_s << ',' << r.id << ','
          << (rec.emulated ? 1 : 0) << ',' << csv_number(number_in(rec.config, "net_latency_us")) << ','
          << csv_number(number_in(rec.config, "net_ns_per_byte")) << '\n';
    } catch (const std::exception& e) {
      fmt::print(stderr, "hpcsens sweep: warning: {}\n", e.what());
    }
  }
  const std::string csv_error = safe_file::write_atomic(s.fd, "results.csv", csv.str());
  fmt::print("\nSweep summary{}: {} of {} runs done, {} skipped after {} retries\n", emu ? " (EMULATED)" : "",
             st.done.size(), plan.runs.size(), st.skipped.size(), spec.retries);
  print_table(spec, plan, agg);
  if (small_stream > 0)
    fmt::print("warning: {} records have STREAM arrays not shown to be >= 4x the last-level cache "
               "(config.stream.meets_4x_llc: false), so mem_gbs may include cache bandwidth; raise "
               "calibration.stream_array_mb\n", small_stream);
  fmt::print("records: {}/records   journal: {}/{}   table: {}/results.csv\n", s.dir, s.dir, kJournalName, s.dir);
  return csv_error;
}

}  // namespace hpcsens::sweep
