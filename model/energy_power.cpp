#include "model/energy_power.h"

#include <algorithm>
#include <cmath>

#include <fmt/core.h>

#include "common/errors.h"
#include "model/dataset.h"
#include "model/diagnostics.h"
#include "model/jackknife.h"
#include "model/nnls.h"

namespace hpcsens::model {
namespace {

struct TermRow {
  PowerTerm term;
  const char *name, *basis, *unit, *words;
};
constexpr TermRow kPowerTerms[] = {
    {PowerTerm::fixed, "static", "1", "W", "P_static"},
    {PowerTerm::core_lin, "core_lin", "cpu_ghz", "W/GHz", "b_core f_core"},
    {PowerTerm::core_cub, "core_cub", "cpu_ghz^3", "W/GHz^3", "c_core f_core^3"},
    {PowerTerm::uncore_lin, "uncore_lin", "uncore_ghz", "W/GHz", "b_unc f_unc"},
    {PowerTerm::uncore_cub, "uncore_cub", "uncore_ghz^3", "W/GHz^3", "c_unc f_unc^3"},
};
const TermRow& row_of(PowerTerm t) { return kPowerTerms[static_cast<int>(t)]; }

// Distinct values of a clock, values within 1 % counting as one setting.
int distinct(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  int n = 0;
  double last = -1;
  for (double x : v)
    if (last < 0 || x > last * 1.01) ++n, last = x;
  return n;
}

// Relative rows: each configuration's basis over its measured power, fitted to 1.
std::optional<std::vector<double>> fit_rows(const PowerForm& f, const std::vector<PowerSample>& s, int skip) {
  std::vector<std::vector<double>> rows;
  std::vector<double> b;
  for (int j = 0; j < static_cast<int>(s.size()); ++j) {
    if (j == skip) continue;
    std::vector<double> r;
    for (PowerTerm t : f) r.push_back(power_basis(t, s[j].core_ghz, s[j].uncore_ghz) / s[j].power_w());
    rows.push_back(std::move(r));
    b.push_back(1.0);
  }
  return nonneg_least_squares(rows, b, {});
}

// Gauss-Jordan inverse of a small symmetric matrix; empty when singular.
Matrix inverse(Matrix a) {
  const size_t n = a.size();
  Matrix inv(n, std::vector<double>(n, 0.0));
  for (size_t i = 0; i < n; ++i) inv[i][i] = 1;
  for (size_t c = 0; c < n; ++c) {
    size_t piv = c;
    for (size_t r = c + 1; r < n; ++r)
      if (std::fabs(a[r][c]) > std::fabs(a[piv][c])) piv = r;
    if (!(std::fabs(a[piv][c]) > 1e-12)) return {};
    std::swap(a[c], a[piv]), std::swap(inv[c], inv[piv]);
    const double d = a[c][c];
    for (size_t k = 0; k < n; ++k) a[c][k] /= d, inv[c][k] /= d;
    for (size_t r = 0; r < n; ++r) {
      if (r == c) continue;
      const double m = a[r][c];
      for (size_t k = 0; k < n; ++k) a[r][k] -= m * a[c][k], inv[r][k] -= m * inv[c][k];
    }
  }
  return inv;
}

// sum r^2 / (n - p) x (A'A)^-1 of the relative rows: the interval when the jackknife has too few fits.
Matrix residual_covariance(const PowerFit& fit, const std::vector<PowerSample>& s) {
  const size_t p = fit.form.size(), n = s.size();
  if (n <= p) return {};
  Matrix ata(p, std::vector<double>(p, 0.0));
  double ss = 0;
  for (size_t j = 0; j < n; ++j) {
    std::vector<double> r;
    for (PowerTerm t : fit.form) r.push_back(power_basis(t, s[j].core_ghz, s[j].uncore_ghz) / s[j].power_w());
    for (size_t a = 0; a < p; ++a)
      for (size_t b = 0; b < p; ++b) ata[a][b] += r[a] * r[b];
    ss += std::pow(fit.diag.rel_err[j], 2);
  }
  Matrix c = inverse(ata);
  for (auto& row : c)
    for (double& x : row) x *= ss / static_cast<double>(n - p);
  return c;
}

// Run-to-run noise of the power: median over repeated configurations of half the relative range.
double power_noise(const std::vector<PowerSample>& s) {
  std::vector<double> halves;
  for (const auto& x : s)
    if (x.reps_w.size() >= 2) {
      const auto [lo, hi] = std::minmax_element(x.reps_w.begin(), x.reps_w.end());
      halves.push_back((*hi - *lo) / 2 / x.power_w());
    }
  return halves.empty() ? NAN : median(halves);
}

// The verdict rules were written for time: say "power" where they speak of time.
std::string about_power(std::string s) {
  for (auto [from, to] : {std::pair<std::string, std::string>{"modelled time", "modelled power"},
                          {"how the times vary", "how the power varies"},
                          {"how this code scales", "how this code's power scales"}})
    if (const auto at = s.find(from); at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

void judge_power(PowerFit& fit, const std::vector<PowerSample>& s) {
  VerdictInput in;
  in.diag = &fit.diag;
  in.noise = fit.noise;
  in.points = s.size();
  in.distinct = static_cast<int>(s.size());
  in.params = static_cast<int>(fit.form.size());
  Verdict v = judge(in);
  for (auto& r : v.reasons) r = about_power(r);
  if (fit.interval_method == "none") v.caution("no interval: as many parameters as configurations");
  fit.verdict = v;
}

void fill_intervals(PowerFit& fit, const std::vector<PowerSample>& s) {
  fit.jackknife_n = usable_fits(fit.loo);
  if (fit.jackknife_n >= 3) {
    fit.covariance = jackknife_covariance(fit.loo);
    fit.interval_method = "jackknife";
    fit.t = jackknife_t(fit.jackknife_n);
  } else if (!(fit.covariance = residual_covariance(fit, s)).empty()) {
    fit.interval_method = "covariance";
    fit.t = t_critical_95(static_cast<int>(s.size() - fit.form.size()));
  }
  for (size_t k = 0; k < fit.params.size(); ++k) {
    const double h = fit.covariance.empty() ? 0 : fit.t * std::sqrt(std::max(0.0, fit.covariance[k][k]));
    fit.low.push_back(std::max(0.0, fit.params[k] - h)), fit.high.push_back(fit.params[k] + h);  // fitted >= 0
  }
}

}  // namespace

const char* power_term_name(PowerTerm t) { return row_of(t).name; }
const char* power_term_basis(PowerTerm t) { return row_of(t).basis; }
const char* power_term_unit(PowerTerm t) { return row_of(t).unit; }

PowerTerm parse_power_term(const std::string& name, const std::string& where) {
  for (const auto& r : kPowerTerms)
    if (name == r.name) return r.term;
  throw InputError(where, "unknown power term '" + name + "' (static, core_lin, core_cub, uncore_lin, uncore_cub)");
}

double PowerSample::power_w() const { return median(reps_w); }

double power_basis(PowerTerm t, double core, std::optional<double> unc) {
  const double u = unc.value_or(NAN);
  switch (t) {
    case PowerTerm::fixed: return 1;
    case PowerTerm::core_lin: return core;
    case PowerTerm::core_cub: return core * core * core;
    case PowerTerm::uncore_lin: return u;
    case PowerTerm::uncore_cub: return u * u * u;
  }
  return NAN;
}

PowerForm choose_power_form(const std::vector<PowerSample>& s) {
  std::vector<double> cores, uncores;
  bool every_uncore = true;
  for (const auto& x : s) {
    cores.push_back(x.core_ghz);
    if (x.uncore_ghz) uncores.push_back(*x.uncore_ghz); else every_uncore = false;
  }
  PowerForm f{PowerTerm::fixed};
  const int nc = distinct(cores), nu = every_uncore ? distinct(uncores) : 0;
  // Two parameters per clock only where the clock has at least 4 settings and one degree of
  // freedom is left over: small designs stay identifiable.
  const int dof_left = static_cast<int>(s.size()) - 1 - (nc >= 2) - (nu >= 2);
  if (nc >= 4 && dof_left >= 2) f.push_back(PowerTerm::core_lin);
  if (nc >= 2) f.push_back(PowerTerm::core_cub);
  if (nu >= 2) f.push_back(PowerTerm::uncore_lin);
  if (nu >= 4 && dof_left >= 2 + (nc >= 4)) f.push_back(PowerTerm::uncore_cub);
  return f;
}

std::string power_form_text(const PowerForm& f) {
  std::string s = "P =";
  for (size_t k = 0; k < f.size(); ++k) s += std::string(k ? " + " : " ") + row_of(f[k]).words;
  return s;
}

double power_at(const PowerForm& f, const std::vector<double>& p, double core, std::optional<double> unc) {
  double w = 0;
  for (size_t k = 0; k < f.size() && k < p.size(); ++k) w += p[k] * power_basis(f[k], core, unc);
  return w;
}

PowerFit fit_power(const std::vector<PowerSample>& s) {
  PowerFit fit;
  fit.form = choose_power_form(s);
  if (s.size() < 2) {
    fit.reason = "one configuration: a power model needs at least two clock settings";
    return fit;
  }
  const auto full = fit_rows(fit.form, s, -1);
  if (!full) {
    fit.reason = "the clocks do not separate the power terms (" + power_form_text(fit.form) + ")";
    return fit;
  }
  fit.ok = true;
  fit.params = *full;
  std::vector<double> obs, loo_pred;
  for (const auto& x : s) {
    fit.predicted.push_back(power_at(fit.form, fit.params, x.core_ghz, x.uncore_ghz));
    obs.push_back(x.power_w());
  }
  fit.diag = diagnose(obs, fit.predicted);
  if (s.size() > fit.form.size())  // a left-out fit still has as many configurations as parameters
    for (int j = 0; j < static_cast<int>(s.size()); ++j) {
      const auto p = fit_rows(fit.form, s, j);
      fit.loo.push_back(p ? *p : std::vector<double>{});
      if (p) loo_pred.push_back(std::fabs(power_at(fit.form, *p, s[j].core_ghz, s[j].uncore_ghz) / obs[j] - 1));
    }
  fit.diag.loocv_mape = loo_pred.empty() ? NAN : mean_abs(loo_pred);
  fit.noise = power_noise(s);
  fill_intervals(fit, s);
  judge_power(fit, s);
  return fit;
}

namespace {
double quad(const Matrix& c, const std::vector<double>& g) {
  double v = 0;
  for (size_t a = 0; a < g.size(); ++a)
    for (size_t b = 0; b < g.size(); ++b) v += g[a] * c[a][b] * g[b];
  return std::max(0.0, v);
}
std::vector<double> ln_gradient(const PowerFit& fit, double core, std::optional<double> unc) {
  const double p = power_at(fit.form, fit.params, core, unc);
  std::vector<double> g;
  for (PowerTerm t : fit.form) g.push_back(power_basis(t, core, unc) / p);
  return g;
}
}  // namespace

double power_ln_half(const PowerFit& fit, double core, std::optional<double> unc) {
  if (fit.covariance.empty()) return 0;
  return fit.t * std::sqrt(quad(fit.covariance, ln_gradient(fit, core, unc)));
}

double power_ln_diff_half(const PowerFit& fit, double ca, std::optional<double> ua, double cb,
                          std::optional<double> ub) {
  if (fit.covariance.empty()) return 0;
  std::vector<double> g = ln_gradient(fit, ca, ua);
  const std::vector<double> gb = ln_gradient(fit, cb, ub);
  for (size_t k = 0; k < g.size(); ++k) g[k] -= gb[k];
  return fit.t * std::sqrt(quad(fit.covariance, g));
}

}  // namespace hpcsens::model
