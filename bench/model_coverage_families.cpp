// Coverage of the reported intervals on truths that are not the model's form (issue 30 item 5;
// prints, not a timed test). Seven families, each drawn `kDraws` times with random parameters and a
// random design: 4-12 configurations, 1-5 repeats, 0.5-3 % time noise, and in one draw of five a
// disturbed run (one repetition 10-30 % slow). Each sweep is fitted with --model auto; then
//  - every stated elasticity's 95 % interval is checked against the truth's local elasticity at the
//    baseline's rates (central difference of ln T),
//  - a prediction inside the measured range (a random unmeasured point) and one outside it (1.3x
//    the top clock and, for two-rate designs, 1.3x the top bandwidth) against the true time,
//  - and an `ok` prediction more than 5 % off is counted, beside how many inside stay `ok`.
// Families: a/f^alpha + b (alpha 0.5-1.2, core sweep); a/f + c/sqrt(f) + b (core sweep); a
// bandwidth knee inside the swept range; a roofline max(a/f, W/m) + b; partial overlap as a p-norm
// (P_cpu^p + P_mem^p)^(1/p) + b (p 1.5-4); memory-only power law W/m^beta + b (beta 0.5-1.2, memory
// sweep); and the model's own form a/f + W/m + b.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "model/analysis.h"
#include "model/predict.h"

namespace hm = hpcsens::model;

namespace {

constexpr int kDraws = 100;

using Truth = std::function<double(double f, double m)>;

struct Family {
  const char* name;
  bool cpu_varied, mem_varied;
  std::function<Truth(std::mt19937&)> draw;
};

double u(std::mt19937& rng, double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); }

std::vector<Family> families() {
  return {
      {"a/f^alpha + b (alpha 0.5-1.2)", true, false,
       [](std::mt19937& r) {
         const double a = u(r, 10, 40), alpha = u(r, 0.5, 1.2), b = u(r, 0, 10);
         return Truth([=](double f, double) { return a / std::pow(f, alpha) + b; });
       }},
      {"a/f + c/sqrt(f) + b", true, false,
       [](std::mt19937& r) {
         const double a = u(r, 5, 30), c = u(r, 2, 15), b = u(r, 0, 10);
         return Truth([=](double f, double) { return a / f + c / std::sqrt(f) + b; });
       }},
      {"bandwidth knee inside the range", true, true,
       [](std::mt19937& r) {
         const double a = u(r, 10, 40), w = u(r, 100, 600), knee = u(r, 30, 60), b = u(r, 0, 3);
         return Truth([=](double f, double m) {
           const double eff = std::pow(std::pow(m, -4) + std::pow(knee, -4), -0.25);  // smooth min(m, knee)
           return a / f + w / eff + b;
         });
       }},
      {"roofline max(a/f, W/m) + b", true, true,
       [](std::mt19937& r) {
         const double a = u(r, 10, 40), w = u(r, 200, 1000), b = u(r, 0, 3);
         return Truth([=](double f, double m) { return std::max(a / f, w / m) + b; });
       }},
      {"partial overlap, p-norm (p 1.5-4)", true, true,
       [](std::mt19937& r) {
         const double a = u(r, 10, 40), w = u(r, 200, 1000), p = u(r, 1.5, 4), b = u(r, 0, 3);
         return Truth([=](double f, double m) { return std::pow(std::pow(a / f, p) + std::pow(w / m, p), 1 / p) + b; });
       }},
      {"memory-only power law W/m^beta + b", false, true,
       [](std::mt19937& r) {
         const double w = u(r, 100, 800), beta = u(r, 0.5, 1.2), b = u(r, 0, 5);
         return Truth([=](double, double m) { return w / std::pow(m, beta) + b; });
       }},
      {"the model's own form a/f + W/m + b", true, true,
       [](std::mt19937& r) {
         const double a = u(r, 10, 40), w = u(r, 100, 600), b = u(r, 0, 3);
         return Truth([=](double f, double m) { return a / f + w / m + b; });
       }},
  };
}

// 4-12 configurations over 1.2-3.0 GHz and 20-80 GB/s, the rates the family varies.
std::vector<std::pair<double, double>> design(const Family& fam, std::mt19937& rng) {
  const int n = std::uniform_int_distribution<int>(4, 12)(rng);
  auto spread = [](int k, double lo, double hi) {
    std::vector<double> v;
    for (int i = 0; i < k; ++i) v.push_back(k == 1 ? hi : lo * std::pow(hi / lo, double(i) / (k - 1)));
    return v;
  };
  std::vector<std::pair<double, double>> c;
  if (fam.cpu_varied && fam.mem_varied) {
    const int nc = std::max(2, static_cast<int>(std::lround(std::sqrt(n * 1.3)))), nm = std::max(2, n / nc);
    for (double f : spread(nc, 1.2, 3.0))
      for (double m : spread(nm, 20, 80)) c.push_back({f, m});
  } else {
    for (double x : spread(n, fam.cpu_varied ? 1.2 : 20, fam.cpu_varied ? 3.0 : 80))
      c.push_back(fam.cpu_varied ? std::make_pair(x, 50.0) : std::make_pair(2.4, x));
  }
  return c;
}

hm::Dataset sweep(const Truth& t, const std::vector<std::pair<double, double>>& cfg, std::mt19937& rng) {
  const int reps = std::uniform_int_distribution<int>(1, 5)(rng);
  const double sigma = u(rng, 0.005, 0.03);
  const bool disturbed = u(rng, 0, 1) < 0.2;
  const size_t hit = std::uniform_int_distribution<size_t>(0, cfg.size() - 1)(rng);
  std::normal_distribution<double> z(0, sigma);
  std::vector<hm::Observation> obs;
  for (size_t i = 0; i < cfg.size(); ++i)
    for (int r = 0; r < reps; ++r) {
      hm::Observation o;
      o.label = fmt::format("c{:.3f}-m{:.2f}", cfg[i].first, cfg[i].second);
      o.cpu_ghz = cfg[i].first, o.mem_gbs = cfg[i].second;
      o.time_s = t(o.cpu_ghz, o.mem_gbs) * (1 + z(rng));
      if (disturbed && i == hit && r == 0) o.time_s *= u(rng, 1.1, 1.3);
      obs.push_back(o);
    }
  return hm::assemble(obs);
}

double true_elasticity(const Truth& t, hm::Rate r, double f, double m) {
  const double h = 1e-4;
  if (r == hm::Rate::cpu_ghz) return (std::log(t(f * (1 + h), m)) - std::log(t(f * (1 - h), m))) / (2 * h);
  return (std::log(t(f, m * (1 + h))) - std::log(t(f, m * (1 - h)))) / (2 * h);
}

struct Tally {
  int fits = 0, refused = 0, e_n = 0, e_in = 0, in_n = 0, in_in = 0, out_n = 0, out_in = 0;
  int ok_far_in = 0, ok_far_out = 0, ok_in = 0;
  std::vector<double> e_width, in_width, out_width;
};

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void check_prediction(const hm::ModelReport& m, const Truth& t, double f, double mm, bool inside, Tally& tl) {
  hm::SystemSpec s;
  s.name = "x", s.cpu_ghz = f, s.mem_gbs = mm;
  const hm::Prediction p = hm::predict(m, s);
  const double truth = t(f, mm);
  const bool covered = p.low_s <= truth && truth <= p.high_s;
  (inside ? tl.in_n : tl.out_n) += 1;
  (inside ? tl.in_in : tl.out_in) += covered;
  (inside ? tl.in_width : tl.out_width).push_back((p.high_s - p.low_s) / p.predicted_s);
  (inside ? tl.ok_far_in : tl.ok_far_out) += p.verdict == "ok" && std::fabs(p.predicted_s / truth - 1) > 0.05;
  tl.ok_in += inside && p.verdict == "ok";  // what the rule costs: predictions still stated `ok`
}

void run_family(const Family& fam, std::mt19937& rng, Tally& tl) {
  for (int d = 0; d < kDraws; ++d) {
    const Truth t = fam.draw(rng);
    const auto cfg = design(fam, rng);
    hm::ModelReport m;
    try {
      m = hm::analyze(sweep(t, cfg, rng), {});
    } catch (const std::exception&) {
      ++tl.refused;
      continue;
    }
    ++tl.fits;
    const auto& b = cfg[m.baseline];
    for (const auto& e : m.elasticities) {
      const double te = true_elasticity(t, e.rate, b.first, b.second);
      ++tl.e_n;
      tl.e_in += e.low <= te && te <= e.high;
      tl.e_width.push_back(e.high - e.low);
    }
    const double fin = fam.cpu_varied ? u(rng, 1.3, 2.9) : 2.4, min_ = fam.mem_varied ? u(rng, 22, 75) : 50;
    check_prediction(m, t, fin, min_, true, tl);
    check_prediction(m, t, fam.cpu_varied ? 3.9 : 2.4, fam.mem_varied ? 104 : 50, false, tl);
  }
}

}  // namespace

int main() {
  std::mt19937 rng(30);
  fmt::print("coverage of the reported 95 % intervals off the model's form: {} draws per family, 4-12 configurations, "
             "1-5 repeats, 0.5-3 % noise, a disturbed run in 1 of 5\n",
             kDraws);
  fmt::print("{:<38} {:>5} {:>5} | {:>9} {:>7} | {:>9} {:>7} | {:>9} {:>7} | {:>9} | {:>5}\n", "family", "fits",
             "refus", "elast cov", "width", "pred in", "width", "pred out", "width", "ok>5% i/o", "ok in");
  for (const auto& fam : families()) {
    Tally tl;
    run_family(fam, rng, tl);
    auto pct = [](int a, int n) { return n ? 100.0 * a / n : NAN; };
    fmt::print("{:<38} {:>5} {:>5} | {:>8.1f}% {:>7.3f} | {:>8.1f}% {:>6.1f}% | {:>8.1f}% {:>6.1f}% | {:>4}/{:<4} | "
               "{:>5}\n",
               fam.name, tl.fits, tl.refused, pct(tl.e_in, tl.e_n), median(tl.e_width), pct(tl.in_in, tl.in_n),
               100 * median(tl.in_width), pct(tl.out_in, tl.out_n), 100 * median(tl.out_width), tl.ok_far_in,
               tl.ok_far_out, tl.ok_in);
  }
  fmt::print("widths: elasticity interval high - low (median); predictions (high_s - low_s) / predicted_s (median)\n"
             "target (issue 30): at least 90 % per family and column, and no 'ok' prediction more than 5 % off\n");
  return 0;
}
