// The model's formula in words, from the term registry (the answers themselves: report/model_view.h
// for models and sweeps, model/predict_answer.h for predictions and mixes).
#include "common/errors.h"
#include "model/model_spec.h"
#include "report/headline.h"

namespace hpcsens::report {

std::string model_formula(const std::string& m) {
  if (m == "overlap")
    return "T = S - w x min(T_cpu, T_mem), S = T_cpu + T_mem + T_io, T_cpu = W_cpu / R_cpu, T_mem = W_mem / R_mem";
  model::ModelSpec spec;
  try {
    spec = model::parse_model_spec(m);
  } catch (const InputError&) {
    return "T = the sum of the fitted terms (work / rate)";
  }
  std::string out = "T =";
  for (std::size_t k = 0; k < spec.terms.size(); ++k) {
    const model::TermInfo& t = model::term_info(spec.terms[k]);
    const std::string name = t.name;
    out += k == 0 ? " " : " + ";
    if (t.rate == model::Rate::none) out += "T_" + name;
    else if (t.divides) out += "W_" + name + " / R_" + name;
    else if (t.term == model::Term::lat) out += "W_lat x L";
    else out += "W_" + name + " x " + model::rate_name(t.rate);
  }
  return out;
}

}  // namespace hpcsens::report
