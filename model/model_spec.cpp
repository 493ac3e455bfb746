#include "model/model_spec.h"

#include <algorithm>
#include <cmath>

#include "common/errors.h"

namespace hpcsens::model {

const char* term_name(Term t) {
  switch (t) {
    case Term::cpu: return "cpu";
    case Term::mem: return "mem";
    case Term::io: return "io";
    case Term::lat: return "lat";
  }
  return "?";
}

const char* term_unit(Term t) {
  switch (t) {
    case Term::cpu: return "Gcycles";
    case Term::mem: return "GB";
    case Term::io: return "s";
    case Term::lat: return "G accesses";  // W_lat [1e9] x L [ns] = seconds
  }
  return "";
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

ModelSpec parse_model_spec(const std::string& name) {
  if (name == "cpu+mem") return {{Term::cpu, Term::mem}, false};
  if (name == "cpu+mem+io") return {{Term::cpu, Term::mem, Term::io}, false};
  if (name == "cpu+mem+lat") return {{Term::cpu, Term::mem, Term::lat}, false};
  if (name == "cpu+mem+io+lat") return {{Term::cpu, Term::mem, Term::io, Term::lat}, false};
  if (name == "overlap") return {{Term::cpu, Term::mem, Term::io}, true};
  throw InputError("--model", "unknown model '" + name +
                                  "' (expected cpu+mem, cpu+mem+io, cpu+mem+lat, cpu+mem+io+lat, overlap or auto)");
}

double basis(Term t, double cpu_ghz, double mem_gbs, std::optional<double> lat_ns) {
  switch (t) {
    case Term::cpu: return 1.0 / cpu_ghz;
    case Term::mem: return 1.0 / mem_gbs;
    case Term::io: return 1.0;
    case Term::lat: return lat_ns.value_or(std::nan(""));
  }
  return std::nan("");
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
