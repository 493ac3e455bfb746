#include "run/slurm_energy.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <sstream>

#include <fmt/format.h>

#include "common/text_escape.h"

namespace hpcsens::run {
namespace {

using nlohmann::json;

constexpr const char* kSource = "slurm sacct ConsumedEnergyRaw";
constexpr long kSlackS = 2;
constexpr double kSacctTimeoutS = 10.0;  // a slurmdbd that hangs must not hang the run

std::vector<std::string> split_bars(const std::string& line) {
  std::vector<std::string> f;
  std::string cur;
  for (char c : line) {
    if (c == '|') f.push_back(cur), cur.clear();
    else cur += c;
  }
  f.push_back(cur);
  return f;
}

// A whole decimal number (sacct prints "Unknown", "" or NO_VAL markers otherwise).
bool whole(const std::string& s, unsigned long long* v) {
  if (s.empty() || s.size() > 19 || s.find_first_not_of("0123456789") != std::string::npos) return false;
  errno = 0;
  *v = std::strtoull(s.c_str(), nullptr, 10);
  return errno == 0;
}

bool own_step(const std::string& id) {
  const auto dot = id.find('.');
  if (dot == std::string::npos) return false;  // the job's own line, not a step
  const std::string step = id.substr(dot + 1);
  return step != "batch" && step != "extern" && step != "interactive";
}

json unavailable(const SacctQuery& q, const std::string& why) {
  return {{"source", kSource}, {"job_id", q.job_id}, {"available", false}, {"reason", "not available: " + why}};
}

std::string first_line(const std::string& s) {
  std::string l = s.substr(0, s.find('\n'));
  if (l.size() > 200) l = l.substr(0, 200) + "...";
  return text::escape_for_message(l);
}

}  // namespace

std::vector<std::string> sacct_argv(const SacctQuery& q) {
  return {"sacct", "-j", q.job_id, "-n", "-P", "-o", "JobIDRaw,Start,End,ConsumedEnergyRaw"};
}

std::vector<std::string> sacct_env() { return {"SLURM_TIME_FORMAT=%s"}; }

json slurm_energy_from_sacct(const std::string& text, const SacctQuery& q, bool* final) {
  *final = true;
  json steps = json::array();
  std::vector<std::string> unended, unmeasured;
  unsigned long long total = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const auto f = split_bars(line);
    unsigned long long start = 0, end = 0, joules = 0;
    if (f.size() < 4 || !own_step(f[0]) || !whole(f[1], &start)) continue;
    if (static_cast<long>(start) < q.start_s - kSlackS || static_cast<long>(start) > q.end_s + kSlackS) continue;
    const std::string id = text::escape_for_message(f[0]);
    if (!whole(f[2], &end)) {
      unended.push_back(id);
      continue;
    }
    // 0 or empty: no plugin gathered it; Slurm's NO_VAL64 markers are too large to be joules.
    if (!whole(f[3], &joules) || joules == 0 || joules >= (1ull << 62)) {
      unmeasured.push_back(id);
      continue;
    }
    total += joules;
    steps.push_back({{"step", id}, {"energy_j", joules}, {"start_s", start}, {"end_s", end}});
  }
  if (!unended.empty() || (steps.empty() && unmeasured.empty())) *final = false;
  if (!unended.empty())
    return unavailable(q, fmt::format("step(s) {} of Slurm job {} have no end in Slurm's accounting yet; read it later "
                                      "with sacct -j {} -o JobID,ConsumedEnergy", fmt::join(unended, ", "), q.job_id, q.job_id));
  if (steps.empty() && unmeasured.empty())
    return unavailable(q, fmt::format("sacct lists no step of Slurm job {} that started during the run", q.job_id));
  if (!unmeasured.empty())
    return unavailable(q, fmt::format("Slurm recorded no energy for step(s) {} (its AcctGatherEnergyType is none, or the "
                                      "plugin cannot read the nodes' sensors)", fmt::join(unmeasured, ", ")));
  return {{"source", kSource}, {"job_id", q.job_id}, {"available", true}, {"energy_j", total}, {"steps", steps}};
}

json slurm_energy(const SacctQuery& q, const SacctRunner& run, int tries, double wait_s) {
  json last;
  for (int i = 0; i < tries; ++i) {
    if (i > 0) ::usleep(static_cast<useconds_t>(wait_s * 1e6));
    const mpi::Captured c = run(sacct_argv(q), sacct_env());
    if (!c.started) return unavailable(q, "sacct was not found (Slurm's accounting commands are not installed here)");
    if (c.timed_out) return unavailable(q, fmt::format("sacct -j {} did not answer within {:g} s", q.job_id, kSacctTimeoutS));
    if (c.status != 0)
      return unavailable(q, fmt::format("sacct -j {} failed (exit {}): {}", q.job_id, c.status, first_line(c.output)));
    bool final = true;
    last = slurm_energy_from_sacct(c.output, q, &final);
    if (final) break;
  }
  return last;
}

json slurm_energy_for_run(long start_s, long end_s) {
  const char* id = std::getenv("SLURM_JOB_ID");
  if (id == nullptr || *id == '\0') return nullptr;
  const SacctQuery q{id, start_s, end_s};
  return slurm_energy(q, [](const std::vector<std::string>& argv, const std::vector<std::string>& env) {
    return mpi::capture_output(argv, kSacctTimeoutS, env);
  });
}

}  // namespace hpcsens::run
