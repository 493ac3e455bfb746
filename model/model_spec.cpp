#include "model/model_spec.h"

#include <algorithm>
#include <cmath>

#include "common/errors.h"

namespace hpcsens::model {

namespace {

const std::vector<TermInfo> kTerms = {
    {Term::cpu, "cpu", "Gcycles", Rate::cpu_ghz, true, "CPU frequencies", "core work (scales with the core clock)"},
    {Term::mem, "mem", "GB", Rate::mem_gbs, true, "memory bandwidths (memory configurations)",
     "memory traffic (scales with sustained bandwidth)"},
    {Term::io, "io", "s", Rate::none, false, "", "fixed time (I/O, network, waiting)"},
    // W_lat [1e9 accesses] x L [ns] = seconds
    {Term::lat, "lat", "G accesses", Rate::lat_ns, false, "memory latencies", "latency-bound accesses"},
    {Term::fixed, "fixed", "s", Rate::none, false, "",
     "all time that does not scale with the swept rate (memory, I/O, network at the swept configuration)"},
};

}  // namespace

const std::vector<TermInfo>& all_terms() { return kTerms; }

const TermInfo& term_info(Term t) {
  for (const auto& i : kTerms)
    if (i.term == t) return i;
  return kTerms.front();  // unreachable: every enumerator has an entry (tested)
}

const char* term_name(Term t) { return term_info(t).name; }
const char* term_unit(Term t) { return term_info(t).unit; }

const char* rate_name(Rate r) {
  switch (r) {
    case Rate::cpu_ghz: return "cpu_ghz";
    case Rate::mem_gbs: return "mem_gbs";
    case Rate::lat_ns: return "lat_ns";
    case Rate::none: break;
  }
  return "";
}

double rate_value(Rate r, double cpu_ghz, double mem_gbs, std::optional<double> lat_ns) {
  switch (r) {
    case Rate::cpu_ghz: return cpu_ghz;
    case Rate::mem_gbs: return mem_gbs;
    case Rate::lat_ns: return lat_ns.value_or(std::nan(""));
    case Rate::none: break;
  }
  return std::nan("");
}

std::string ModelSpec::name() const {
  if (overlap) return "overlap";
  std::string s;
  for (Term t : terms) s += (s.empty() ? "" : "+") + std::string(term_name(t));
  return s;
}

bool ModelSpec::has(Term t) const { return index_of(t) >= 0; }

int ModelSpec::index_of(Term t) const {
  auto it = std::find(terms.begin(), terms.end(), t);
  return it == terms.end() ? -1 : static_cast<int>(it - terms.begin());
}

const std::vector<std::string>& model_names() {
  static const std::vector<std::string> names{"cpu+mem", "cpu+mem+io", "cpu+mem+lat", "cpu+mem+io+lat",
                                              "overlap", "cpu+fixed", "mem+fixed"};
  return names;
}

ModelSpec parse_model_spec(const std::string& name) {
  if (name == "cpu+mem") return {{Term::cpu, Term::mem}, false};
  if (name == "cpu+mem+io") return {{Term::cpu, Term::mem, Term::io}, false};
  if (name == "cpu+mem+lat") return {{Term::cpu, Term::mem, Term::lat}, false};
  if (name == "cpu+mem+io+lat") return {{Term::cpu, Term::mem, Term::io, Term::lat}, false};
  if (name == "overlap") return {{Term::cpu, Term::mem, Term::io}, true};
  if (name == "cpu+fixed") return {{Term::cpu, Term::fixed}, false};
  if (name == "mem+fixed") return {{Term::mem, Term::fixed}, false};
  throw InputError("--model", "unknown model '" + name +
                                  "' (expected cpu+mem, cpu+mem+io, cpu+mem+lat, cpu+mem+io+lat, overlap, cpu+fixed, "
                                  "mem+fixed or auto)");
}

Rate one_rate_of(const ModelSpec& spec) {
  if (!spec.has(Term::fixed)) return Rate::none;
  for (Term t : spec.terms)
    if (term_info(t).rate != Rate::none) return term_info(t).rate;
  return Rate::none;
}

double basis(Term t, double cpu_ghz, double mem_gbs, std::optional<double> lat_ns) {
  const TermInfo& i = term_info(t);
  if (i.rate == Rate::none) return 1.0;
  const double r = rate_value(i.rate, cpu_ghz, mem_gbs, lat_ns);
  return i.divides ? 1.0 / r : r;
}

double model_time(const ModelSpec& spec, const std::vector<double>& p, double cpu_ghz, double mem_gbs,
                  std::optional<double> lat_ns) {
  double sum = 0, overlapping_sum = 0, overlapping_max = 0;
  for (size_t k = 0; k < spec.terms.size(); ++k) {
    const double part = p[k] * basis(spec.terms[k], cpu_ghz, mem_gbs, lat_ns);
    sum += part;
    if (spec.overlap && (spec.terms[k] == Term::cpu || spec.terms[k] == Term::mem)) {
      overlapping_sum += part;
      overlapping_max = std::max(overlapping_max, part);
    }
  }
  if (spec.overlap) sum -= p[spec.terms.size()] * (overlapping_sum - overlapping_max);
  return sum;
}

std::vector<double> model_gradient(const ModelSpec& spec, const std::vector<double>& p, double cpu_ghz,
                                   double mem_gbs, std::optional<double> lat_ns) {
  std::vector<double> g(spec.num_params(), 0.0);
  const size_t n = spec.terms.size();
  for (size_t k = 0; k < n; ++k) g[k] = basis(spec.terms[k], cpu_ghz, mem_gbs, lat_ns);
  if (!spec.overlap) return g;
  const int c = spec.index_of(Term::cpu), m = spec.index_of(Term::mem);
  const double w = p[n];
  const double pc = p[c] * g[c], pm = p[m] * g[m];
  // d/dW of (sum - w (sum - max)): the larger part keeps its full weight.
  if (pc >= pm) {
    g[m] *= (1.0 - w);
  } else {
    g[c] *= (1.0 - w);
  }
  g[n] = -(pc + pm - std::max(pc, pm));
  return g;
}

}  // namespace hpcsens::model
