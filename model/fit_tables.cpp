#include "model/fit_tables.h"

#include <fmt/core.h>

#include <cmath>

#include "common/errors.h"
#include "model/number_format.h"

namespace hpcsens::model {
namespace {

std::string tail(const ModelReport& r) {
  return csv_cell(r.spec.name()) + "," + r.verdict.word + "," + (r.emulated ? "true" : "false");
}

std::string points_csv(const ModelReport& r) {
  std::string o =
      "label,cpu_ghz,mem_gbs,observed_s,predicted_s,error_frac,loocv_error_frac,min_s,max_s,reps,lat_ns,model,"
      "verdict,emulated\n";
  for (size_t j = 0; j < r.points.size(); ++j) {
    const auto& p = r.points[j];
    o += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_cell(p.label), csv_number(p.cpu_ghz),
                     csv_number(p.mem_gbs), csv_number(p.time_s), csv_number(r.predicted[j]),
                     csv_number(r.diag.rel_err[j]), csv_number(r.loocv_err[j]), csv_number(p.min_s),
                     csv_number(p.max_s), p.reps, p.lat_ns ? csv_number(*p.lat_ns) : "", tail(r));
  }
  return o;
}

std::string terms_csv(const ModelReport& r) {
  std::string o =
      "term,work_unit,work,work_stderr,bounds_lo,bounds_hi,closed_form_hi,share_frac,share_lo_frac,share_hi_frac,"
      "rate,elasticity,elasticity_low,elasticity_high,model,verdict,emulated\n";
  for (const auto& t : r.terms) {
    const Rate rate = term_info(t.term).rate;
    const Elasticity* e = nullptr;
    for (const auto& x : r.elasticities)
      if (x.rate == rate && rate != Rate::none) e = &x;
    o += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", term_name(t.term), csv_cell(term_unit(t.term)),
                     csv_number(t.work), csv_number(t.stderr_), csv_number(t.bounds.lo), csv_number(t.bounds.hi),
                     csv_number(t.bounds.closed_form_hi), csv_number(t.share), csv_number(t.share_lo),
                     csv_number(t.share_hi), rate_name(rate), e ? csv_number(e->elasticity) : "",
                     e ? csv_number(e->low) : "", e ? csv_number(e->high) : "", tail(r));
  }
  return o;
}

std::string ranks_csv(const ModelReport& r) {
  if (!r.has_per_rank)
    throw InputError("--table ranks", "needs --per-rank and inputs with per-rank times (run records or a CSV rank "
                                      "column)");
  std::string o =
      "rank,fitted,cpu_share_frac,mem_share_frac,fixed_share_frac,error_frac,elasticity_cpu_ghz,elasticity_mem_gbs,"
      "group,model,verdict,emulated\n";
  for (const auto& s : r.per_rank) {
    int group = 0;
    for (size_t g = 0; g < r.groups.size(); ++g)
      for (int k : r.groups[g].ranks)
        if (k == s.rank) group = static_cast<int>(g) + 1;
    // A rate without a term (not varied by the sweep) gets an empty cell, not a share of 0.
    const double cpu = r.spec.has(Term::cpu) ? s.cpu : NAN, mem = r.spec.has(Term::mem) ? s.mem : NAN;
    o += s.ok ? fmt::format("{},true,{},{},{},{},{},{},{},{}\n", s.rank, csv_number(cpu), csv_number(mem),
                            csv_number(s.fixed), csv_number(s.error), csv_number(-cpu), csv_number(-mem), group,
                            tail(r))
              : fmt::format("{},false,,,,,,,,{}\n", s.rank, tail(r));
  }
  return o;
}

// Which rates the sweep varied by design and which only jittered (held constant, folded into fixed).
std::string rates_csv(const ModelReport& r) {
  std::string o = "rate,varied,lo,hi,median,range_frac,noise_frac,noise_from,threshold_frac,note,model,verdict,emulated\n";
  for (const auto& v : r.rates)
    o += fmt::format("{},{},{},{},{},{},{},{},{},{},{}\n", rate_name(v.rate), v.varied ? "true" : "false",
                     csv_number(v.lo), csv_number(v.hi), csv_number(v.median), csv_number(v.range),
                     csv_number(v.noise), v.noise_from, csv_number(v.threshold), csv_cell(held_constant_note(v)),
                     tail(r));
  return o;
}

}  // namespace

std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string render_fit_csv(const ModelReport& rep, const std::string& table) {
  if (table == "points") return points_csv(rep);
  if (table == "terms") return terms_csv(rep);
  if (table == "ranks") return ranks_csv(rep);
  if (table == "rates") return rates_csv(rep);
  throw InputError("--table", "unknown table '" + table + "' (expected points, terms, ranks or rates)");
}

}  // namespace hpcsens::model
