#include "model/sensitivity.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "model/number_format.h"

namespace hpcsens::model {
namespace {

// A 10 % better rate: 10 % more clock or bandwidth divides a dividing term by 1.1; 10 % less
// latency multiplies a latency term by 0.9.
double saving_factor(bool divides) { return divides ? 1.0 - 1.0 / 1.1 : 0.1; }

const char* better(Rate r) { return r == Rate::cpu_ghz || r == Rate::mem_gbs ? "more" : "less"; }

// Network choices come in factors, not 10 % steps: an interconnect generation halves latency
// or doubles bandwidth. Both halve a network term (its basis is time per message or per byte).
bool network_rate(Rate r) { return r == Rate::net_latency_us || r == Rate::net_ns_per_byte; }

// What a statement's own verdict adds to its clause in the sentence.
std::string statement_mark(const Elasticity& e) {
  if (e.unreliable) return " (UNRELIABLE: the sweep cannot determine it)";
  if (e.verdict_reasons.empty()) return "";  // only the model's own rules: said once, above
  if (e.verdict == "unreliable") return " (UNRELIABLE: see its verdict)";
  if (e.verdict == "caution") return " (caution: see its verdict)";
  return "";
}

}  // namespace

const char* rate_words(Rate r) {
  switch (r) {
    case Rate::cpu_ghz: return "core clock";
    case Rate::mem_gbs: return "memory bandwidth";
    case Rate::lat_ns: return "memory latency";
    case Rate::net_latency_us: return "network latency";
    case Rate::net_ns_per_byte: return "network bandwidth";
    case Rate::none: break;
  }
  return "";
}

std::vector<Elasticity> elasticities(const ModelSpec& spec, const std::vector<double>& work,
                                     const std::vector<double>& se, const Point& b, double modelled_s) {
  std::vector<Elasticity> out;
  if (!(modelled_s > 0)) return out;
  // The overlap model hides w of the smaller of the cpu and memory parts: a change of that part
  // moves the time by only (1 - w) of it.
  const size_t nt = spec.terms.size();
  const double w = spec.overlap && work.size() > nt ? work[nt] : 0.0;
  const int c = spec.index_of(Term::cpu), m = spec.index_of(Term::mem);
  const double pc = c >= 0 ? work[c] * basis(Term::cpu, b) : 0, pm = m >= 0 ? work[m] * basis(Term::mem, b) : 0;
  for (size_t k = 0; k < nt; ++k) {
    const TermInfo& info = term_info(spec.terms[k]);
    if (info.rate == Rate::none) continue;
    const bool hidden = spec.overlap && ((int(k) == c && pc < pm) || (int(k) == m && pm <= pc && pc != pm));
    const double x = basis(spec.terms[k], b) / modelled_s * (hidden ? 1.0 - w : 1.0);
    const double share = work[k] * x, half = 1.96 * se[k] * x;
    const double lo = std::max(0.0, share - half), hi = std::min(1.0, share + half);
    const double sign = info.divides ? -1.0 : 1.0;
    Elasticity e;
    e.rate = info.rate;
    e.elasticity = sign * share;
    e.low = sign < 0 ? -hi : lo;
    e.high = sign < 0 ? -lo : hi;
    const double f = saving_factor(info.divides);
    e.saving_10 = share * f, e.saving_10_low = lo * f, e.saving_10_high = hi * f;
    out.push_back(e);
  }
  return out;
}

void set_resampled_intervals(std::vector<Elasticity>& es, const std::vector<double>& half) {
  for (size_t i = 0; i < es.size() && i < half.size(); ++i) {
    Elasticity& e = es[i];
    if (!std::isfinite(half[i])) continue;
    e.cov_low = e.low, e.cov_high = e.high;
    const bool divides = e.rate == Rate::cpu_ghz || e.rate == Rate::mem_gbs;  // the others are times
    const double share = std::fabs(e.elasticity);
    const double lo = std::max(0.0, share - half[i]), hi = std::min(1.0, share + half[i]);
    e.low = divides ? -hi : lo;
    e.high = divides ? -lo : hi;
    const double f = saving_factor(divides);
    e.saving_10_low = lo * f, e.saving_10_high = hi * f;
  }
}

std::string sensitivity_sentence(const std::vector<Elasticity>& es, const Point& b) {
  if (es.empty()) return "";
  std::string s = fmt::format("at {:g} GHz / {}", b.cpu_ghz, gbs_text(b.mem_gbs));
  // Largest saving first: that is the resource worth buying.
  std::vector<Elasticity> sorted = es;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Elasticity& a, const Elasticity& c) { return a.saving_10 > c.saving_10; });
  for (size_t i = 0; i < sorted.size(); ++i) {
    const auto& e = sorted[i];
    const std::string unreliable = statement_mark(e);
    if (network_rate(e.rate)) {
      const double half = 0.5 / saving_factor(false);  // share x 0.5, from the 10 % figures
      s += fmt::format("{} {} {} saves {} ({}-{}) of run time{}", i == 0 ? "," : ";",
                       e.rate == Rate::net_latency_us ? "halving" : "doubling", rate_words(e.rate),
                       percent(e.saving_10 * half, 1), percent(e.saving_10_low * half, 1),
                       percent(e.saving_10_high * half, 1), unreliable);
      continue;
    }
    s += fmt::format("{} 10 % {} {} saves {} ({}-{}) of run time{}", i == 0 ? "," : ";", better(e.rate),
                     rate_words(e.rate), percent(e.saving_10, 1), percent(e.saving_10_low, 1),
                     percent(e.saving_10_high, 1), unreliable);
  }
  return s;
}

std::string share_sentence(const ModelSpec& spec, double cpu_share, double mem_share) {
  const double f = saving_factor(true);
  std::string s;
  if (spec.has(Term::cpu)) s = fmt::format("10 % more core clock saves {}", percent(cpu_share * f, 1));
  if (spec.has(Term::mem))
    s += fmt::format("{}10 % more memory bandwidth saves {}", s.empty() ? "" : ", ", percent(mem_share * f, 1));
  return s;
}

}  // namespace hpcsens::model
