#pragma once
// The power model of issue 31 (docs/methodology.md, "Energy: power model and decisions"):
//   P = P_static + [b_core f_core] + c_core f_core^3 + b_unc f_unc [+ c_unc f_unc^3]
// CMOS dynamic power is C V^2 f; over the DVFS range V rises about linearly with f, so the core's
// dynamic power grows like f V(f)^2 = f (v0 + k f)^2, a cubic in f. Its f^2 part is absorbed by
// the f and f^3 terms; the linear term is fitted only when the core clock took at least 4
// distinct values (3 parameters on one clock, at least one degree of freedom left), else the cube
// alone. The uncore's voltage moves little over its ratio range, so its power is linear in its
// clock (the Cuttlefish crosses: 29.5 and 26.3 W per 0.9 GHz step); its cube joins at 4 values.
// Fitted by exact non-negative least squares of the relative residuals (as the time model), with
// jackknife intervals over configurations and the time model's verdict rules. Pure functions.
#include <optional>
#include <string>
#include <vector>

#include "model/fitter.h"
#include "model/verdict.h"

namespace hpcsens::model {

enum class PowerTerm { fixed, core_lin, core_cub, uncore_lin, uncore_cub };
const char* power_term_name(PowerTerm t);   // static, core_lin, core_cub, uncore_lin, uncore_cub
const char* power_term_basis(PowerTerm t);  // "1", "cpu_ghz", "cpu_ghz^3", ...
const char* power_term_unit(PowerTerm t);   // "W", "W/GHz", "W/GHz^3"
// Throws InputError(where, ...) for an unknown name.
PowerTerm parse_power_term(const std::string& name, const std::string& where);

// One configuration's clocks and measured mean power (one value per repetition).
struct PowerSample {
  double core_ghz = 0;
  std::optional<double> uncore_ghz;
  std::vector<double> reps_w;
  double power_w() const;  // the median
};

using PowerForm = std::vector<PowerTerm>;
PowerForm choose_power_form(const std::vector<PowerSample>& s);
std::string power_form_text(const PowerForm& f);  // "P = P_static + c_core f_core^3 + b_unc f_unc"
double power_basis(PowerTerm t, double core_ghz, std::optional<double> uncore_ghz);

struct PowerFit {
  bool ok = false;
  std::string reason;  // why not ok
  PowerForm form;
  std::vector<double> params;             // form order
  std::vector<double> low, high;          // 95 % intervals of the parameters
  std::vector<double> predicted;          // per sample
  std::vector<std::vector<double>> loo;   // leave-one-out fits (empty: not usable)
  Matrix covariance;                      // jackknife covariance, else the residual covariance
  std::string interval_method = "none";   // jackknife | covariance | none
  int jackknife_n = 0;
  double t = 0;                           // the interval multiplier of `covariance`
  Diagnostics diag;
  double noise = NAN;                     // run-to-run noise of the power, NaN without repetitions
  Verdict verdict;
};

PowerFit fit_power(const std::vector<PowerSample>& s);

double power_at(const PowerForm& f, const std::vector<double>& p, double core_ghz, std::optional<double> uncore_ghz);
// 95 % half-width of ln P at one configuration, and of ln P(a) - ln P(b) (their correlation kept).
double power_ln_half(const PowerFit& fit, double core_ghz, std::optional<double> uncore_ghz);
double power_ln_diff_half(const PowerFit& fit, double core_a, std::optional<double> unc_a, double core_b,
                          std::optional<double> unc_b);

}  // namespace hpcsens::model
