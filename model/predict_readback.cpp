// A prediction JSON (hpcsens.prediction.v1) read back into the model report and predictions the
// renderers of model/predict_output.cpp take: only what they show (the model's name, verdict and
// baseline configuration; each candidate's rates, times, intervals, verdict and extrapolation).
#include <cmath>

#include "common/errors.h"
#include "model/energy_json.h"
#include "model/fit_output.h"
#include "model/predict_rates.h"
#include "model/saved_output.h"

namespace hpcsens::model {
namespace {

const char* const kAgain = "hpcsens predict MODEL ... --format json -o FILE";

// The baseline configuration in the point the header reads (rates in the model's units).
Point baseline_point(const SavedJson& b) {
  Point p;
  p.label = b.text("label");
  p.cpu_ghz = b.number("cpu_ghz");
  p.mem_gbs = b.number_or_nan("mem_gbs");
  p.time_s = b.number("time_s");
  p.lat_ns = b.optional("lat_ns");
  p.net_latency_us = b.optional("net_latency_us");
  if (const auto gbs = b.optional("net_bandwidth_gbs")) p.net_ns_per_byte = 1.0 / *gbs;  // 1 GB/s = 1 B/ns
  return p;
}

ModelReport model_of(const SavedJson& s, const std::string& file) {
  ModelReport m;
  const std::string name = s.text("model");
  try {
    m.spec = parse_model_spec(name);
  } catch (const InputError&) {
    s.fail("model", "'" + name + "' is not a model form hpcsens fits");
  }
  m.app = s.text("app");
  m.emulated = s.flag("emulated");
  m.verdict.word = s.word("verdict", kSavedVerdictWords);
  m.verdict.reasons = s.texts("verdict_reasons");
  m.points = {baseline_point(s.object("baseline"))};
  m.baseline = 0;
  // The model's energy as predict wrote it (the Energy line under the table; model/energy_json.h).
  m.energy = energy_report_from_json(s.node(), file);
  return m;
}

PredictedRate rate_of(const SavedJson& r) {
  PredictedRate out;
  out.name = r.text("name");
  out.unit = r.text("unit");
  out.value = r.number("value");
  out.given = r.flag("given");
  out.modelled = r.flag("modelled");
  out.beyond = r.number("beyond");
  out.measured_lo = out.measured_hi = NAN;
  return out;
}

Prediction prediction_of(const SavedJson& p, double baseline_model_s) {
  Prediction out;
  out.system.name = p.text("name");
  out.system.cpu_ghz = p.optional("cpu_ghz").value_or(0);
  out.system.mem_gbs = p.optional("mem_gbs").value_or(0);
  out.system.lat_ns = p.optional("lat_ns");
  out.system.net_latency_us = p.optional("net_latency_us");
  out.system.net_bandwidth_gbs = p.optional("net_bandwidth_gbs");
  out.system.cpu_work_factor = p.number("cpu_work_factor");
  for (const auto& r : p.objects("rates")) out.rates.push_back(rate_of(r));
  out.predicted_s = p.number("predicted_s");
  out.fit_low_s = p.number("fit_low_s");
  out.fit_high_s = p.number("fit_high_s");
  out.low_s = p.number("low_s");
  out.high_s = p.number("high_s");
  out.cov_low_s = p.number_or_nan("covariance_low_s");
  out.cov_high_s = p.number_or_nan("covariance_high_s");
  out.overlap_low_s = p.optional("overlap_low_s");
  out.overlap_high_s = p.optional("overlap_high_s");
  out.speedup = p.number("speedup");
  out.speedup_low = p.number_or_nan("speedup_low");
  out.speedup_high = p.number_or_nan("speedup_high");
  out.interval_method = p.word("interval_method", {"covariance", "jackknife"});
  out.extrapolated = p.texts("extrapolated_rates");
  if (p.flag("extrapolated") == out.extrapolated.empty())
    p.fail("extrapolated", "disagrees with extrapolated_rates");
  out.extrapolation = p.number("extrapolation");
  out.verdict = p.word("verdict", kSavedVerdictWords);
  out.verdict_reasons = p.texts("verdict_reasons");
  out.warnings = p.texts("warnings");
  out.baseline_model_s = baseline_model_s;
  return out;
}

// The sweep's range of each rate, from the file's `rates` columns, onto every candidate's rate.
void add_measured_ranges(const SavedJson& s, std::vector<Prediction>& preds) {
  for (const auto& column : s.objects("rates")) {
    const std::string name = column.text("name");
    const double lo = column.number_or_nan("measured_low"), hi = column.number_or_nan("measured_high");
    for (auto& p : preds)
      for (auto& r : p.rates)
        if (r.name == name) r.measured_lo = lo, r.measured_hi = hi;
  }
}

}  // namespace

std::string render_answer_only(const Answer& a, const std::string& format) {
  if (format == "json") return answer_json(a).dump(2) + "\n";
  return format == "md" ? answer_markdown(a) : answer_text(a);
}

std::string render_saved_prediction(const nlohmann::json& j, const std::string& file, const std::string& format,
                                    bool summary) {
  const SavedJson s(j, file, kAgain);
  if (s.text("schema") != kPredictionSchema) s.fail("schema", std::string("is not '") + kPredictionSchema + "'");
  const ModelReport m = model_of(s, file);
  const double baseline_model_s = s.object("baseline").number_or_nan("model_s");
  std::vector<Prediction> preds;
  for (const auto& p : s.objects("predictions")) preds.push_back(prediction_of(p, baseline_model_s));
  add_measured_ranges(s, preds);
  const Answer a = read_saved_answer(s);
  const std::string model_path = s.text("model_path");
  if (summary) return render_answer_only(a, format);
  if (format == "json") return j.dump(2) + "\n";  // what predict wrote, every field kept
  return render_predictions(m, preds, a, format, model_path);
}

Answer read_saved_answer(const SavedJson& s) {
  const SavedJson a = s.object("answer");
  Answer out;
  out.headline = a.text("headline");
  out.tone = a.word("tone", {"ok", "caution", "bad", "info"});
  out.caveats = a.texts("caveats");
  for (const auto& x : a.objects("advice")) out.advice.push_back({x.text("text"), x.text("figure")});
  return out;
}

}  // namespace hpcsens::model
