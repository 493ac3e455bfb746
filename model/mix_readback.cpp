// A workload mix JSON (hpcsens.mix.v1) read back into the mix and result model/mix_output.cpp
// renders: the applications with their models' verdicts, every system with its applications'
// projections, the ranking, the grouped warnings and the answer as written.
#include <memory>

#include "common/errors.h"
#include "model/mix.h"
#include "model/saved_output.h"

namespace hpcsens::model {
namespace {

const char* const kMixAgain = "hpcsens predict --mix MIX.yaml --system FILE.yaml --format json -o FILE";

Mix mix_of(const SavedJson& s, const std::string& file) {
  Mix mix;
  mix.path = file;
  mix.baseline_nodes = s.number("baseline_nodes");
  mix.warnings = s.texts("warnings");
  for (const auto& a : s.objects("applications")) {
    MixApp app;
    app.name = a.text("name");
    app.model_path = a.text("model");
    app.weight = a.number("weight");
    app.model.verdict.word = a.word("verdict", kSavedVerdictWords);
    app.model.verdict.reasons = a.texts("verdict_reasons");
    app.model.emulated = a.flag("emulated");
    mix.apps.push_back(std::move(app));
  }
  return mix;
}

MixAppResult app_result(const SavedJson& a) {
  MixAppResult out;
  out.name = a.text("name");
  out.weight = a.number("weight");
  out.verdict = a.word("verdict", kSavedVerdictWords);
  Prediction& p = out.pred;
  p.system.name = out.name;
  p.predicted_s = a.number("predicted_s");
  p.fit_low_s = a.number("fit_low_s");
  p.fit_high_s = a.number("fit_high_s");
  p.overlap_low_s = a.optional("overlap_low_s");
  p.overlap_high_s = a.optional("overlap_high_s");
  p.speedup = a.number("speedup");
  p.speedup_low = a.number_or_nan("speedup_low");
  p.speedup_high = a.number_or_nan("speedup_high");
  p.extrapolated = a.texts("extrapolated_rates");
  if (a.flag("extrapolated") == p.extrapolated.empty()) a.fail("extrapolated", "disagrees with extrapolated_rates");
  p.extrapolation = a.number("extrapolation");
  p.verdict = out.verdict;
  p.verdict_reasons = a.texts("verdict_reasons");
  p.warnings = a.texts("warnings");
  out.power_w = a.optional("power_w");  // absent in files written before issue 31's mix energy
  out.energy_j = a.optional("energy_j");
  return out;
}

MixSystem system_of(const SavedJson& s) {
  MixSystem out;
  out.system.name = s.text("name");
  out.system.cpu_ghz = s.number("cpu_ghz");
  out.system.mem_gbs = s.number("mem_gbs");
  out.system.cpu_work_factor = s.number("cpu_work_factor");
  out.system.nodes = s.optional("nodes");
  out.system.price = s.optional("price");
  out.system.power_w = s.optional("power_w");
  out.system.uncore_ghz = s.optional("uncore_ghz");
  out.speedup = s.number("speedup");
  out.speedup_low = s.number_or_nan("speedup_low");
  out.speedup_high = s.number_or_nan("speedup_high");
  out.throughput = s.optional("throughput");
  out.per_price = s.optional("per_price");
  out.per_watt = s.optional("per_watt");
  out.node_power_w = s.optional("node_power_w");
  out.energy_ratio = s.optional("energy_ratio");
  out.verdict = s.word("verdict", kSavedVerdictWords);
  out.extrapolation = s.number("extrapolation");
  out.warnings = s.texts("warnings");
  for (const auto& a : s.objects("applications")) out.apps.push_back(app_result(a));
  return out;
}

RankBy rank_by_of(const SavedJson& s, const char* key, const std::string& name) {
  for (RankBy r : kAllRankBy)
    if (name == rank_by_name(r)) return r;
  s.fail(key, "is '" + name + "', not speedup, throughput, per-price or per-watt");
}

PowerBasis power_basis_of(const SavedJson& s, const std::string& name) {
  for (PowerBasis b : {PowerBasis::measured, PowerBasis::nominal, PowerBasis::none})
    if (name == power_basis_name(b)) return b;
  s.fail("power_basis", "is '" + name + "', not 'measured power model', 'nominal, from SYSTEMS file' or 'none'");
}

MixResult result_of(const SavedJson& s, const Mix& mix) {
  MixResult r;
  r.mix = &mix;
  r.rank_by = rank_by_of(s, "rank_by", s.text("rank_by"));
  r.emulated = s.flag("emulated");
  r.overlaps = s.texts("ranking_overlaps");
  const std::string basis = s.text_or("power_basis", "");
  r.power_basis = basis.empty() ? PowerBasis::none : power_basis_of(s, basis);
  r.power_note = s.text_or("power_note", "not recorded (the file was written before mixes recorded their power basis; "
                                         "its per watt is the nominal power_w)");
  for (const auto& sys : s.objects("systems")) r.systems.push_back(system_of(sys));
  const SavedJson winners = s.object("winners");
  for (const auto& [key, value] : winners.node().items()) {
    const RankBy by = rank_by_of(s, "winners", key);
    r.winners.emplace_back(by, winners.text(key.c_str()));
  }
  for (const auto& g : s.objects("warnings_grouped"))
    r.warnings.push_back({g.text("warning"), g.texts("systems"), g.texts("applications")});
  r.answer = read_saved_answer(s);
  return r;
}

}  // namespace

std::string render_saved_mix(const nlohmann::json& j, const std::string& file, const std::string& format,
                             bool summary) {
  const SavedJson s(j, file, kMixAgain);
  if (s.text("schema") != kMixSchema) s.fail("schema", std::string("is not '") + kMixSchema + "'");
  const Mix mix = mix_of(s, file);
  const MixResult r = result_of(s, mix);  // points at `mix`, which outlives it here
  if (summary) return render_answer_only(r.answer, format);
  if (format == "json") return j.dump(2) + "\n";  // what predict --mix wrote, every field kept
  return render_mix(r, format);
}

}  // namespace hpcsens::model
