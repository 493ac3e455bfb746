#include "model/prediction_verdict.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "model/number_format.h"
#include "model/predict_rates.h"

namespace hpcsens::model {
namespace {

// The interval `ok` is judged by: the fit's 95 % interval, at least the model's out-of-sample
// error (LOOCV MAPE), since off the model's form the fit interval only carries the noise.
std::optional<std::string> width_doubt(const ModelReport& m, const Prediction& p) {
  if (!(p.predicted_s > 0)) return std::nullopt;
  const double fit_half = (p.fit_high_s - p.fit_low_s) / (2 * p.predicted_s);
  const double model_err = std::isfinite(m.diag.loocv_mape) ? m.diag.loocv_mape : 0.0;
  const double half = std::max(fit_half, model_err);
  if (half <= kOkPredictionError) return std::nullopt;
  return fmt::format(
      "its interval is +-{} of the projection (the fit's 95 % interval +-{}, the model's leave-one-out error {}), "
      "wider than the +-{} an 'ok' prediction is held to",
      percent(half, 1), percent(fit_half, 1), percent(model_err, 1), percent(kOkPredictionError, 0));
}

// A rate projected between two measured settings far apart rests on the model's form there, which
// no measurement tested: a knee between 20 and 80 GB/s fits a 1/m term at both ends.
std::optional<std::string> gap_doubt(const ModelReport& m, const UserRate& u, const PredictedRate& r, double v) {
  std::vector<double> s;
  for (const auto& pt : m.points) {
    const double x = user_value(u, pt);
    if (std::isfinite(x) && x > 0) s.push_back(x);
  }
  std::sort(s.begin(), s.end());
  if (s.size() < 2 || !std::isfinite(v) || v < s.front() || v > s.back()) return std::nullopt;
  for (double x : s)
    if (std::fabs(v / x - 1) <= kAtSettingTolerance) return std::nullopt;
  const auto hi = std::upper_bound(s.begin(), s.end(), v);
  const double below = *(hi - 1), above = *hi;
  if (above / below <= kMaxTestedGap) return std::nullopt;
  return fmt::format(
      "{} {:g} {} lies between the measured settings {:g} and {:g} {}, {:.2f}x apart: the model's form between them "
      "is assumed, not tested ('ok' needs settings at most 2x apart around the value)",
      r.name, v, r.unit, below, above, r.unit, above / below);
}

}  // namespace

std::vector<std::string> prediction_doubts(const ModelReport& m, const Prediction& p) {
  std::vector<std::string> out;
  if (auto w = width_doubt(m, p)) out.push_back(*w);
  for (const auto& r : p.rates) {
    if (!r.modelled) continue;
    for (const auto& u : user_rates()) {
      if (r.name != u.name) continue;
      const double v =
          u.rate == Rate::cpu_ghz ? p.system.cpu_ghz / p.system.cpu_work_factor : system_value(u, p.system);
      if (auto g = gap_doubt(m, u, r, v)) out.push_back(*g);
    }
  }
  return out;
}

void judge_prediction(const ModelReport& m, Prediction& p) {
  if (p.verdict != "ok") return;
  p.doubts = prediction_doubts(m, p);
  if (p.doubts.empty()) return;
  p.verdict = "caution";
  for (const auto& d : p.doubts) p.verdict_reasons.push_back(d);
}

}  // namespace hpcsens::model
