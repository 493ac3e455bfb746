#include "model/per_rank.h"

#include <algorithm>
#include <cmath>

namespace hpcsens::model {

std::vector<RankShare> fit_per_rank(const ModelSpec& spec_in, const std::vector<Point>& points,
                                    const std::vector<int>& ranks,
                                    const std::vector<std::vector<double>>& rank_times, size_t baseline,
                                    const FitOptions& opts) {
  ModelSpec spec = spec_in;
  spec.overlap = false;  // shares of a sum are only meaningful without the overlap correction
  std::vector<RankShare> out;
  out.reserve(ranks.size());
  for (size_t r = 0; r < ranks.size(); ++r) {
    RankShare s;
    s.rank = ranks[r];
    const auto& t = rank_times[r];
    int usable = 0;
    for (double v : t) usable += std::isfinite(v) && v > 0;
    if (usable > spec.num_params()) {
      const FitResult f = fit_model(spec, points, t, opts);
      if (f.converged) {
        s.ok = true;
        double total = 0, err = 0;
        std::vector<double> part(spec.terms.size());
        for (size_t k = 0; k < spec.terms.size(); ++k) {
          part[k] = f.params[k] * basis(spec.terms[k], points[baseline]);
          total += part[k];
        }
        for (size_t k = 0; k < spec.terms.size(); ++k) {
          const double sh = total > 0 ? part[k] / total : 0;
          if (spec.terms[k] == Term::cpu) s.cpu += sh;
          else if (spec.terms[k] == Term::mem) s.mem += sh;
          else s.fixed += sh;  // io and latency: time that does not scale with cpu or bandwidth
        }
        for (size_t j = 0; j < points.size(); ++j)
          if (std::isfinite(t[j]) && t[j] > 0) err += std::fabs(model_time(spec, f.params, points[j]) / t[j] - 1);
        s.error = err / usable;
      }
    }
    out.push_back(s);
  }
  return out;
}

std::vector<RankGroup> group_ranks(const std::vector<RankShare>& shares, double tolerance) {
  // Leader clustering in rank order: a rank joins the first group whose mean shares are all
  // within `tolerance` of its own. Unlike rounding, ranks near a rounding boundary are not split.
  struct Acc {
    double cpu = 0, mem = 0, fixed = 0;
    std::vector<int> ranks;
  };
  std::vector<Acc> acc;
  for (const auto& s : shares) {
    if (!s.ok) continue;
    Acc* home = nullptr;
    for (auto& g : acc) {
      const double n = static_cast<double>(g.ranks.size());
      if (std::fabs(g.cpu / n - s.cpu) <= tolerance && std::fabs(g.mem / n - s.mem) <= tolerance &&
          std::fabs(g.fixed / n - s.fixed) <= tolerance) {
        home = &g;
        break;
      }
    }
    if (!home) home = &acc.emplace_back();
    home->cpu += s.cpu, home->mem += s.mem, home->fixed += s.fixed;
    home->ranks.push_back(s.rank);
  }
  std::vector<RankGroup> out;
  for (auto& a : acc) {
    const double n = static_cast<double>(a.ranks.size());
    out.push_back({a.cpu / n, a.mem / n, a.fixed / n, std::move(a.ranks)});
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const RankGroup& a, const RankGroup& b) { return a.ranks.size() > b.ranks.size(); });
  return out;
}

std::string format_rank_list(std::vector<int> ranks) {
  std::sort(ranks.begin(), ranks.end());
  std::string s;
  for (size_t i = 0; i < ranks.size();) {
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (!s.empty()) s += ",";
    s += std::to_string(ranks[i]);
    if (j > i) s += "-" + std::to_string(ranks[j]);
    i = j + 1;
  }
  return s;
}

}  // namespace hpcsens::model
