// The model's formula in words (the answers themselves: report/model_view.h for models and
// sweeps, model/predict_answer.h for predictions and mixes).
#include "report/headline.h"

namespace hpcsens::report {

std::string model_formula(const std::string& m) {
  if (m == "cpu+fixed") return "T = W_cpu / R_cpu + T_fixed";
  if (m == "mem+fixed") return "T = W_mem / R_mem + T_fixed";
  if (m == "cpu+mem") return "T = W_cpu / R_cpu + W_mem / R_mem";
  if (m == "cpu+mem+io") return "T = W_cpu / R_cpu + W_mem / R_mem + T_io";
  if (m == "cpu+mem+lat") return "T = W_cpu / R_cpu + W_mem / R_mem + W_lat x L";
  if (m == "cpu+mem+io+lat") return "T = W_cpu / R_cpu + W_mem / R_mem + T_io + W_lat x L";
  if (m == "overlap")
    return "T = S - w x min(T_cpu, T_mem), S = T_cpu + T_mem + T_io, T_cpu = W_cpu / R_cpu, T_mem = W_mem / R_mem";
  return "T = the sum of the fitted terms (work / rate)";
}

}  // namespace hpcsens::report
