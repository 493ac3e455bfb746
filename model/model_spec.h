#pragma once
// Which terms a sensitivity model has and what each term's "basis" is at a configuration.
// T_j = sum_k W_k * x_k(j) with x_cpu = 1/R_cpu, x_mem = 1/R_mem, x_io = 1, x_lat = L_j,
// x_net_lat = network latency (us), x_net_bw = network time per byte (ns/byte = 1 / GB/s);
// the overlap variant replaces the cpu+mem sum by sum - w (sum - max) (design.md).
#include <cmath>
#include <optional>
#include <string>
#include <vector>

namespace hpcsens::model {

// Adding a term: one entry in kTerms (model_spec.cpp) plus its tests; the fitter, diagnostics,
// bounds, prediction and output read everything else from the registry.
enum class Term { cpu, mem, io, lat, fixed, net_lat, net_bw };

// The rate a term's basis is built from.
enum class Rate { none, cpu_ghz, mem_gbs, lat_ns, net_latency_us, net_ns_per_byte };

// One term's description: everything the rest of the model code needs to know about it.
struct TermInfo {
  Term term;
  const char* name;         // in model names and JSON ("cpu")
  const char* unit;         // unit of the fitted work W
  Rate rate;                // the rate the basis is built from (none: constant time)
  bool divides;             // basis = 1/rate (true) or rate itself (false); ignored for Rate::none
  const char* identified_by;  // what a sweep must vary to identify it (empty: constant)
  const char* meaning;      // one phrase for text output
};

const TermInfo& term_info(Term t);
const std::vector<TermInfo>& all_terms();
const char* term_name(Term t);
// Unit of W for the term, for tables and docs.
const char* term_unit(Term t);
// "cpu_ghz", "mem_gbs", "lat_ns", "net_latency_us", "net_ns_per_byte" or "" for Rate::none.
const char* rate_name(Rate r);
// The value of a rate at a configuration (NaN when absent; the network rates are absent here).
double rate_value(Rate r, double cpu_ghz, double mem_gbs, std::optional<double> lat_ns);

// What a sweep's knobs set at one configuration (a record's config: cpu_ghz_requested;
// memory_config, mem_bw_requested and uncore_*; net_config and net_added_*), to tell a rate the
// design varied from one that only jittered (model/knob_design.h). Unknown for CSV rows and for
// records not written by a sweep.
struct KnobSetting {
  bool known = false;
  std::string cpu, mem, net;  // one key per knob group; "" where the sweep did not set it
  double net_added_latency_us = 0, net_added_ns_per_byte = 0;  // what the network knob added
};

// One measured configuration with its combined (median) time.
struct Point {
  std::string label;
  double cpu_ghz = 0;
  double mem_gbs = 0;
  std::optional<double> lat_ns;
  // The network as the run saw it (config.net_latency_us, config.net_ns_per_byte): measured base
  // rates plus the delay the sweep's network knob added.
  std::optional<double> net_latency_us;
  std::optional<double> net_ns_per_byte;
  double time_s = 0;   // median over repetitions
  double min_s = 0;    // spread of the repetitions
  double max_s = 0;
  int reps = 1;
  // Relative spread (max - min) / median of the rates measured at the repetitions of this
  // configuration (STREAM and the clock are measured at every visit): the rates' own
  // measurement noise. NaN with fewer than two repetitions.
  double cpu_spread = NAN, mem_spread = NAN, lat_spread = NAN, net_lat_spread = NAN, net_bw_spread = NAN;
  KnobSetting knobs;
  // Energy (model/energy_dataset.h): the uncore clock the sweep set (GHz; absent when it set
  // none), each repetition's mean power (W; empty: no energy measured) and the median energy.
  std::optional<double> uncore_ghz;
  std::vector<double> power_reps_w;
  double energy_j = NAN;
  std::string energy_domains;  // what the joules hold: "package+dram", "package", "pkg_energy_j"
  std::string energy_reason;   // why there is none (the record's reason), "" when there is
  std::string energy_source;   // powercap | emulated | csv | mixed (repetitions disagree); "" unknown
  int energy_nodes = 0;        // nodes the energy sums over (the most of any repetition); 0 unknown
};

struct ModelSpec {
  std::vector<Term> terms;
  bool overlap = false;  // cpu and mem may overlap by a fitted fraction w in [0, 1]

  // Parameters in the fit vector: one work per term, plus w for the overlap variant.
  int num_params() const { return static_cast<int>(terms.size()) + (overlap ? 1 : 0); }
  std::string name() const;
  bool has(Term t) const;
  int index_of(Term t) const;  // -1 when absent
};

// "cpu+mem", "cpu+mem+io", "cpu+mem+lat", "cpu+mem+io+lat", "overlap", and the one-rate models
// "cpu+fixed" and "mem+fixed"; any of them but overlap with network terms "+net_lat", "+net_bw"
// or both added, and the network-only models "net_lat+fixed", "net_bw+fixed",
// "net_lat+net_bw+fixed"; throws InputError otherwise.
ModelSpec parse_model_spec(const std::string& name);
// Every name parse_model_spec accepts, for option validators and messages.
const std::vector<std::string>& model_names();
// The single node rate a one-rate model varies (cpu+fixed: cpu_ghz), Rate::none for the others
// (a network-only model included: its fixed part holds the node's time).
Rate one_rate_of(const ModelSpec& spec);

// The basis value x_k at a configuration (see the header comment).
double basis(Term t, double cpu_ghz, double mem_gbs, std::optional<double> lat_ns);
// The same with every rate of the point, the network's included.
double rate_value(Rate r, const Point& p);
double basis(Term t, const Point& p);

// Modelled time for parameters `p` (works, then w when overlap) at one configuration.
double model_time(const ModelSpec& spec, const std::vector<double>& p, double cpu_ghz, double mem_gbs,
                  std::optional<double> lat_ns);
double model_time(const ModelSpec& spec, const std::vector<double>& p, const Point& pt);
// d(model_time)/d(p_i) at one configuration, for uncertainty propagation.
std::vector<double> model_gradient(const ModelSpec& spec, const std::vector<double>& p, double cpu_ghz,
                                   double mem_gbs, std::optional<double> lat_ns);
std::vector<double> model_gradient(const ModelSpec& spec, const std::vector<double>& p, const Point& pt);
// Whether a model has a network term (it needs the network rates of every configuration).
bool has_network_term(const ModelSpec& spec);

}  // namespace hpcsens::model
