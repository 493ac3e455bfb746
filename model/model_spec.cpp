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
    // W [1e6 messages] x latency [us] = seconds
    {Term::net_lat, "net_lat", "M messages", Rate::net_latency_us, false, "network latencies (knobs.network)",
     "messages on the critical path (scale with the network latency)"},
    // W [GB] x time per byte [ns/byte] = seconds
    {Term::net_bw, "net_bw", "GB", Rate::net_ns_per_byte, false, "network bandwidths (knobs.network)",
     "bytes on the critical path (scale with 1 / network bandwidth)"},
};

// The models without network terms; network terms can be added to each but overlap.
const std::vector<std::string> kNodeModels = {"cpu+mem", "cpu+mem+io", "cpu+mem+lat", "cpu+mem+io+lat",
                                              "overlap", "cpu+fixed", "mem+fixed"};

ModelSpec parse_node_model(const std::string& name) {
  if (name == "cpu+mem") return {{Term::cpu, Term::mem}, false};
  if (name == "cpu+mem+io") return {{Term::cpu, Term::mem, Term::io}, false};
  if (name == "cpu+mem+lat") return {{Term::cpu, Term::mem, Term::lat}, false};
  if (name == "cpu+mem+io+lat") return {{Term::cpu, Term::mem, Term::io, Term::lat}, false};
  if (name == "overlap") return {{Term::cpu, Term::mem, Term::io}, true};
  if (name == "cpu+fixed") return {{Term::cpu, Term::fixed}, false};
  if (name == "mem+fixed") return {{Term::mem, Term::fixed}, false};
  throw InputError("--model", "unknown model '" + name +
                                  "' (expected cpu+mem, cpu+mem+io, cpu+mem+lat, cpu+mem+io+lat, overlap, cpu+fixed, "
                                  "mem+fixed or auto, each but overlap optionally with +net_lat and/or +net_bw, or "
                                  "net_lat+fixed, net_bw+fixed, net_lat+net_bw+fixed)");
}

// `node` with the network terms `net` (in registry order), before its constant term if it has one.
ModelSpec with_network(const std::string& node, const std::vector<Term>& net) {
  ModelSpec s;
  if (node == "fixed") {
    s.terms = net;
    s.terms.push_back(Term::fixed);
    return s;
  }
  if (node == "overlap")
    throw InputError("--model", "network terms cannot be added to the overlap model (it overlaps cpu and mem only)");
  s = parse_node_model(node);
  const auto at = s.has(Term::fixed) ? s.terms.end() - 1 : s.terms.end();
  s.terms.insert(at, net.begin(), net.end());
  return s;
}

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
    case Rate::net_latency_us: return "net_latency_us";
    case Rate::net_ns_per_byte: return "net_ns_per_byte";
    case Rate::none: break;
  }
  return "";
}

double rate_value(Rate r, double cpu_ghz, double mem_gbs, std::optional<double> lat_ns) {
  switch (r) {
    case Rate::cpu_ghz: return cpu_ghz;
    case Rate::mem_gbs: return mem_gbs;
    case Rate::lat_ns: return lat_ns.value_or(std::nan(""));
    case Rate::net_latency_us:
    case Rate::net_ns_per_byte:
    case Rate::none: break;
  }
  return std::nan("");
}

double rate_value(Rate r, const Point& p) {
  if (r == Rate::net_latency_us) return p.net_latency_us.value_or(std::nan(""));
  if (r == Rate::net_ns_per_byte) return p.net_ns_per_byte.value_or(std::nan(""));
  return rate_value(r, p.cpu_ghz, p.mem_gbs, p.lat_ns);
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
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    const std::vector<std::vector<Term>> nets = {{Term::net_lat}, {Term::net_bw}, {Term::net_lat, Term::net_bw}};
    for (const auto& node : kNodeModels) {
      n.push_back(node);
      if (node != "overlap")
        for (const auto& net : nets) n.push_back(with_network(node, net).name());
    }
    for (const auto& net : nets) n.push_back(with_network("fixed", net).name());
    return n;
  }();
  return names;
}

ModelSpec parse_model_spec(const std::string& name) {
  std::string node;
  std::vector<Term> net;
  for (std::size_t from = 0; from <= name.size();) {
    const std::size_t plus = std::min(name.find('+', from), name.size());
    const std::string part = name.substr(from, plus - from);
    if (part == "net_lat" || part == "net_bw") {
      const Term t = part == "net_lat" ? Term::net_lat : Term::net_bw;
      if (std::find(net.begin(), net.end(), t) != net.end())
        throw InputError("--model", "model '" + name + "' names " + part + " twice");
      net.push_back(t);
    } else {
      node += (node.empty() ? "" : "+") + part;
    }
    from = plus + 1;
  }
  if (net.empty()) return parse_node_model(name);
  std::sort(net.begin(), net.end());  // registry order: net_lat before net_bw
  return with_network(node, net);
}

Rate one_rate_of(const ModelSpec& spec) {
  if (!spec.has(Term::fixed)) return Rate::none;
  for (Term t : spec.terms)
    if (term_info(t).rate == Rate::cpu_ghz || term_info(t).rate == Rate::mem_gbs) return term_info(t).rate;
  return Rate::none;
}

bool has_network_term(const ModelSpec& spec) { return spec.has(Term::net_lat) || spec.has(Term::net_bw); }

namespace {
Point rates_only(double cpu_ghz, double mem_gbs, std::optional<double> lat_ns) {
  Point p;
  p.cpu_ghz = cpu_ghz, p.mem_gbs = mem_gbs, p.lat_ns = lat_ns;
  return p;
}
}  // namespace

double basis(Term t, const Point& p) {
  const TermInfo& i = term_info(t);
  if (i.rate == Rate::none) return 1.0;
  const double r = rate_value(i.rate, p);
  return i.divides ? 1.0 / r : r;
}

double basis(Term t, double cpu_ghz, double mem_gbs, std::optional<double> lat_ns) {
  return basis(t, rates_only(cpu_ghz, mem_gbs, lat_ns));
}

double model_time(const ModelSpec& spec, const std::vector<double>& p, double cpu_ghz, double mem_gbs,
                  std::optional<double> lat_ns) {
  return model_time(spec, p, rates_only(cpu_ghz, mem_gbs, lat_ns));
}

double model_time(const ModelSpec& spec, const std::vector<double>& p, const Point& pt) {
  double sum = 0, overlapping_sum = 0, overlapping_max = 0;
  for (size_t k = 0; k < spec.terms.size(); ++k) {
    const double part = p[k] * basis(spec.terms[k], pt);
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
  return model_gradient(spec, p, rates_only(cpu_ghz, mem_gbs, lat_ns));
}

std::vector<double> model_gradient(const ModelSpec& spec, const std::vector<double>& p, const Point& pt) {
  std::vector<double> g(spec.num_params(), 0.0);
  const size_t n = spec.terms.size();
  for (size_t k = 0; k < n; ++k) g[k] = basis(spec.terms[k], pt);
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
