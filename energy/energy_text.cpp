#include "energy/energy_text.h"

#include <fmt/core.h>

#include <set>

#include "energy/json_fields.h"
#include "energy/sampler.h"

namespace hpcsens::energy {
using nlohmann::json;

namespace {
using fields::flag;
using fields::num;
using fields::str;

std::string joules(double j) { return j >= 1e4 ? fmt::format("{:.4g} kJ", j / 1e3) : fmt::format("{:.4g} J", j); }

std::string node_text(const json& n) {
  const std::string host = str(n, "host", "?");
  if (!flag(n, "available")) return host + ": " + str(n, "reason", "not available");
  std::string parts;
  const double span = num(n, "duration_s");
  const auto by = n.find("joules_by_domain");
  if (by != n.end() && by->is_object()) {
    for (const char* d : {"package", "core", "uncore", "dram", "psys"}) {
      const double j = num(*by, d, -1);
      if (j < 0) continue;
      parts += (parts.empty() ? "" : ", ") + fmt::format("{} {}", d, joules(j));
      if (span > 0) parts += fmt::format(" ({:.3g} W)", j / span);
    }
  }
  std::string text = fmt::format("{}: {} over {:.3g} s ({} samples, {:.3g} s apart", host,
                                 parts.empty() ? "no domain read" : parts, span, static_cast<long long>(num(n, "samples")),
                                 num(n, "interval_s"));
  int wraps = 0;
  std::string stopped;
  if (const auto d = n.find("domains"); d != n.end() && d->is_array())
    for (const auto& z : *d) {
      if (!z.is_object()) continue;
      wraps += static_cast<int>(num(z, "wraps"));
      if (z.contains("available") && !flag(z, "available")) stopped += "; " + str(z, "name", "?") + " " + str(z, "reason");
    }
  text += fmt::format(", {} counter wraps)", wraps) + stopped;
  if (const std::string note = str(n, "note"); !note.empty()) text += "; " + note;
  return text;
}

}  // namespace

std::string energy_summary(const json& energy, const std::vector<std::string>& job_hosts) {
  if (!energy.is_object()) return "";
  std::string text;
  std::set<std::string> measured;
  if (const auto nodes = energy.find("nodes"); nodes != energy.end() && nodes->is_array())
    for (const auto& n : *nodes)
      if (n.is_object()) {
        text += (text.empty() ? "" : "; ") + node_text(n);
        measured.insert(str(n, "host"));
      }
  if (!flag(energy, "available")) return str(energy, "reason", text.empty() ? "not available" : text);
  std::string others;
  for (const auto& h : job_hosts)
    if (measured.count(h) == 0) others += (others.empty() ? "" : ", ") + h;
  if (!others.empty())
    text += "; not measured: " + others +
            " (ranks ran there too, but no counter agent of theirs handed over the node's energy: counters were off "
            "with --events none, or the agent did not start or answer)";
  return text + "; " + kCoverage;
}

std::string slurm_energy_summary(const json& energy) {
  if (!energy.is_object()) return "";
  const auto s = energy.find("slurm");
  if (s == energy.end() || !s->is_object()) return "";
  if (!flag(*s, "available")) return str(*s, "reason", "not available");
  std::string steps;
  if (const auto a = s->find("steps"); a != s->end() && a->is_array())
    for (const auto& st : *a)
      if (st.is_object()) steps += (steps.empty() ? "" : ", ") + str(st, "step");
  const auto j = s->find("energy_j");
  const double joules = j != s->end() && j->is_number() ? j->get<double>() : 0.0;
  return fmt::format("{:.0f} J over step(s) {} of Slurm job {} (Slurm's energy plugin, from sacct's ConsumedEnergyRaw; "
                     "its own sensors and coverage, not hpcsens')", joules, steps, str(*s, "job_id"));
}

}  // namespace hpcsens::energy
