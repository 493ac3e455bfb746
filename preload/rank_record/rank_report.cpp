#include "preload/rank_record/rank_report.h"

#include <algorithm>
#include <string_view>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "mpi/imbalance.h"
#include "mpi/timing_bounds.h"

namespace hpcsens::preload {

bool is_read(Category c) {
  return c == Category::io_read || c == Category::posix_read || c == Category::stdio_read;
}
bool is_write(Category c) {
  return c == Category::io_write || c == Category::posix_write || c == Category::stdio_write;
}
bool is_io(Category c) { return io_class(c) != nullptr; }
const char* io_class(Category c) {
  switch (c) {
    case Category::io_meta: case Category::io_read: case Category::io_write: return "mpiio";
    case Category::posix_meta: case Category::posix_read: case Category::posix_write: return "posix";
    case Category::stdio_meta: case Category::stdio_read: case Category::stdio_write: return "stdio";
    default: return nullptr;
  }
}

record::RankRecord make_rank_record(const CallTotals& totals, double seconds_per_tick, int rank, const std::string& host,
                                    int pid, double t0, double t1, double t2, double t3) {
  record::RankRecord r;
  r.rank = rank;
  r.host = host;
  r.pid = pid;
  r.t0 = t0;
  r.t1 = t1;
  r.t2 = t2;
  r.t3 = t3;
  r.wall_s = t2 - t1;
  for (int id = 0; id < kNumCalls; ++id) {
    const CallSlot& s = totals[id];
    if (s.count == 0) continue;
    const Category cat = kCalls[id].category;
    record::CallStats stats{s.count, static_cast<double>(s.ticks) * seconds_per_tick, s.bytes,
                            s.bytes_received};
    if (is_io(cat)) {
      r.io_calls[kCalls[id].name] = stats;
      r.io_s += stats.seconds;
      if (is_read(cat)) r.io_bytes_read += s.bytes;
      if (is_write(cat)) r.io_bytes_written += s.bytes;
    } else {
      r.mpi_calls[kCalls[id].name] = stats;
      r.mpi_s += stats.seconds;
    }
  }
  r.compute_s = std::max(0.0, r.wall_s - r.mpi_s - r.io_s);
  return r;
}

namespace {

std::string file_name(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// An interpreter whose first operand is the program that matters ("python3.11" included).
bool interpreter(const std::string& name) {
  static const char* const kNames[] = {"python", "Rscript", "R", "julia", "perl", "ruby",
                                       "node", "java", "octave", "lua", "bash", "sh"};
  for (const char* n : kNames) {
    const std::string_view prefix(n);
    if (name.starts_with(prefix) &&
        name.find_first_not_of("0123456789.", prefix.size()) == std::string::npos)
      return true;
  }
  return false;
}

}  // namespace

std::string program_label(const std::vector<std::string>& argv) {
  if (argv.empty()) return "";
  const std::string label = file_name(argv[0]);
  if (!interpreter(label)) return label;
  for (std::size_t i = 1; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a == "-c" || a == "-e") break;  // code on the command line: no script to name
    if (a == "-m" && i + 1 < argv.size()) return label + " -m " + argv[i + 1];
    if (!a.empty() && a[0] != '-') return label + " " + file_name(a);
  }
  return label;
}

void set_job(record::Job& out, const JobInfo& job, int nranks, std::vector<std::string> hosts) {
  out.command = job.command;
  out.launcher = job.launcher;
  out.mpi_library = job.mpi_library;
  out.start_utc = job.start_utc;
  out.program = job.program;
  out.nranks = nranks;
  out.hosts = std::move(hosts);
}

void CountersStatusOf::add(int rank, const std::string& status) {
  if (!any_) first_ = status;
  any_ = true;
  differ_ = differ_ || status != first_;
  if (status != "ok" && first_bad_.empty()) first_bad_ = "rank " + std::to_string(rank) + ": " + status;
}

record::RunRecord assemble_run(const JobInfo& job, std::vector<record::RankRecord> ranks) {
  record::RunRecord run;
  std::sort(ranks.begin(), ranks.end(),
            [](const auto& a, const auto& b) { return a.rank < b.rank; });
  std::vector<std::string> hosts;
  CountersStatusOf status;
  for (const auto& r : ranks) {
    if (std::find(hosts.begin(), hosts.end(), r.host) == hosts.end()) hosts.push_back(r.host);
    if (!r.complete) run.complete = false;
    status.add(r.rank, r.counters_status);
  }
  set_job(run.job, job, static_cast<int>(ranks.size()), std::move(hosts));
  run.counters_status = status.result();
  run.ranks = std::move(ranks);
  if (!run.ranks.empty()) {
    mpi::fill_timing(run);
    mpi::fill_imbalance(run);
  }
  return run;
}

std::vector<std::string> command_from_env(const char* json_text,
                                          const std::vector<std::string>& fallback) {
  if (json_text == nullptr || *json_text == '\0') return fallback;
  const auto j = nlohmann::json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_array()) return fallback;
  std::vector<std::string> out;
  for (const auto& e : j) {
    if (!e.is_string()) return fallback;
    out.push_back(e.get<std::string>());
  }
  return out;
}

std::string detect_launcher(const std::function<const char*(const char*)>& getenv_fn) {
  if (const char* v = getenv_fn("HPCSENS_LAUNCHER"); v != nullptr && *v != '\0') return v;
  if (getenv_fn("OMPI_COMM_WORLD_SIZE") != nullptr) return "openmpi";
  if (getenv_fn("SLURM_PROCID") != nullptr) return "slurm";
  if (getenv_fn("PMI_RANK") != nullptr || getenv_fn("HYDRA_CONTROL_FD") != nullptr)
    return "mpich-hydra";
  return "singleton";
}

// MPICH separates its label from the number with a tab ("MPICH Version:\t4.0.2"): a tab in a
// one-line name breaks table alignment and the text report shows it as '?', so every run of
// blanks becomes one space and the ends are trimmed (with the trailing commas Open MPI leaves).
std::string first_line(const std::string& text) {
  const auto is_blank = [](char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f'; };
  std::string line;
  for (const char c : text.substr(0, text.find_first_of("\r\n"))) {
    if (!is_blank(c)) line += c;
    else if (!line.empty() && line.back() != ' ') line += ' ';
  }
  while (!line.empty() && (line.back() == ' ' || line.back() == ',')) line.pop_back();
  return line;
}

std::string utc_iso8601(std::time_t t) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string make_run_id(std::time_t t, int pid) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "run-%Y%m%dT%H%M%SZ", &tm);
  return std::string(buf) + "-" + std::to_string(pid);
}

std::string record_path(const std::string& out_dir, const std::string& run_id) {
  return out_dir + "/" + run_id + ".*.json";
}

std::string partial_path(const std::string& out_dir, const std::string& run_id, int rank) {
  return out_dir + "/" + run_id + ".rank" + std::to_string(rank) + ".*.partial.json";
}

}  // namespace hpcsens::preload
