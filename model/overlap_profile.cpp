#include "model/overlap_profile.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

namespace hpcsens::model {
namespace {

constexpr int kMax = 6;  // works of the largest model, plus room
using Vec = std::array<double, kMax>;
using Sq = std::array<Vec, kMax>;

// The normal equations of a least-squares problem min |A x - 1|^2 = x'Gx - 2b'x + n.
struct Gram {
  int p = 0;
  Sq g{};
  Vec b{};
  double n = 0;
};

struct Small {
  Vec x{};
  double f = INFINITY;
};

// Least squares over the columns in `mask` (the others held at 0), on the diagonally scaled system
// (the works' units differ by orders of magnitude); false when singular or a work comes out < 0.
bool solve_subset(const Gram& G, unsigned mask, Small& out) {
  int idx[kMax], m = 0;
  for (int k = 0; k < G.p; ++k)
    if (mask >> k & 1U) idx[m++] = k;
  double s[kMax], a[kMax][kMax + 1];
  for (int r = 0; r < m; ++r) {
    if (!(G.g[idx[r]][idx[r]] > 0)) return false;
    s[r] = 1.0 / std::sqrt(G.g[idx[r]][idx[r]]);
  }
  for (int r = 0; r < m; ++r) {
    for (int c = 0; c < m; ++c) a[r][c] = G.g[idx[r]][idx[c]] * s[r] * s[c];
    a[r][m] = G.b[idx[r]] * s[r];
  }
  for (int c = 0; c < m; ++c) {  // Gaussian elimination with partial pivoting
    int piv = c;
    for (int r = c + 1; r < m; ++r)
      if (std::fabs(a[r][c]) > std::fabs(a[piv][c])) piv = r;
    if (!(std::fabs(a[piv][c]) > 1e-11)) return false;
    if (piv != c)
      for (int k = 0; k <= m; ++k) std::swap(a[c][k], a[piv][k]);
    for (int r = 0; r < m; ++r) {
      if (r == c) continue;
      const double f = a[r][c] / a[c][c];
      for (int k = c; k <= m; ++k) a[r][k] -= f * a[c][k];
    }
  }
  out.x.fill(0.0);
  double bx = 0;
  for (int r = 0; r < m; ++r) {
    const double v = a[r][m] / a[r][r] * s[r];
    if (!(v >= 0)) return false;
    out.x[idx[r]] = v;
    bx += G.b[idx[r]] * v;
  }
  out.f = G.n - bx;  // at a stationary point of the subset, x'Gx = b'x
  return true;
}

// Exact non-negative least squares of a small system: the optimum is the best feasible
// stationary point over the supports (at most 2^p); the full support, when feasible, is it.
Small nnls_gram(const Gram& G) {
  Small best;
  best.f = G.n;  // every work at 0
  const unsigned full = (1U << G.p) - 1;
  Small s;
  if (solve_subset(G, full, s)) return s;
  for (unsigned mask = 1; mask < full; ++mask)
    if (solve_subset(G, mask, s) && s.f < best.f) best = s;
  return best;
}

// The configurations sorted by q = x_mem / x_cpu, with prefix sums of z z' and z (z = basis / T):
// a configuration is cpu-dominated exactly when W_cpu / W_mem >= q.
struct Profile {
  int p = 0, c = -1, m = -1;
  size_t n = 0;
  std::vector<double> q;
  std::vector<Sq> zz;  // zz[k]: sum over the first k sorted configurations
  std::vector<Vec> z;

  // Regime k: the first k sorted configurations cpu-dominated (the mem part counts 1 - w),
  // the rest mem-dominated (the cpu part counts 1 - w).
  Gram regime(size_t k, double w) const {
    Gram G;
    G.p = p;
    G.n = static_cast<double>(n);
    const double v = 1.0 - w;
    for (int a = 0; a < p; ++a) {
      const double d1a = a == m ? v : 1.0, d2a = a == c ? v : 1.0;
      for (int b = 0; b < p; ++b) {
        const double d1b = b == m ? v : 1.0, d2b = b == c ? v : 1.0;
        G.g[a][b] = d1a * d1b * zz[k][a][b] + d2a * d2b * (zz[n][a][b] - zz[k][a][b]);
      }
      G.b[a] = d1a * z[k][a] + d2a * (z[n][a] - z[k][a]);
    }
    return G;
  }

  bool consistent(size_t k, const Vec& x) const {
    const double wc = x[c], wm = x[m], tol = 1e-9 * (wc + wm);
    if (k > 0 && wc < q[k - 1] * wm - tol * q[k - 1]) return false;
    if (k < n && wc > q[k] * wm + tol * q[k]) return false;
    return true;
  }

  // The boundary W_cpu = rho W_mem inside regime k's normal equations: W_mem's column becomes
  // mem + rho cpu, cpu's column goes.
  Small face(const Gram& G, double rho) const {
    Gram F;
    F.p = p - 1;
    F.n = G.n;
    int map[kMax], r = 0;
    for (int a = 0; a < p; ++a)
      if (a != c) map[r++] = a;
    auto col = [&](int a, int b) {  // G between reduced columns a, b
      const int ia = map[a], ib = map[b];
      double v = G.g[ia][ib];
      if (ia == m) v += rho * G.g[c][ib];
      if (ib == m) v += rho * G.g[ia][c];
      if (ia == m && ib == m) v += rho * rho * G.g[c][c];
      return v;
    };
    for (int a = 0; a < F.p; ++a) {
      for (int b = 0; b < F.p; ++b) F.g[a][b] = col(a, b);
      F.b[a] = G.b[map[a]] + (map[a] == m ? rho * G.b[c] : 0.0);
    }
    const Small s = nnls_gram(F);
    Small out;
    out.f = s.f;
    for (int a = 0; a < F.p; ++a) out.x[map[a]] = s.x[a];
    out.x[c] = rho * out.x[m];
    return out;
  }

  Small best_at(double w) const {
    Small best;
    for (size_t k = 0; k <= n; ++k) {
      const Gram G = regime(k, w);
      const Small s = nnls_gram(G);
      if (s.f < best.f && consistent(k, s.x)) best = s;
      if (k < n && (k + 1 == n || q[k + 1] > q[k])) {  // the boundary at q[k], once per distinct q
        const Small f = face(regime(k + 1, w), q[k]);
        if (f.f < best.f) best = f;
      }
    }
    return best;
  }
};

std::optional<Profile> make_profile(const ModelSpec& spec, const std::vector<Point>& points,
                                    const std::vector<double>& times) {
  Profile pr;
  pr.p = static_cast<int>(spec.terms.size());
  pr.c = spec.index_of(Term::cpu);
  pr.m = spec.index_of(Term::mem);
  if (!spec.overlap || pr.c < 0 || pr.m < 0 || pr.p > kMax) return std::nullopt;
  std::vector<Vec> rows;
  for (size_t j = 0; j < points.size(); ++j) {
    if (!std::isfinite(times[j]) || times[j] <= 0) continue;
    Vec zj{};
    bool ok = true;
    for (int k = 0; k < pr.p; ++k) {
      zj[k] = basis(spec.terms[k], points[j]) / times[j];
      ok = ok && std::isfinite(zj[k]) && zj[k] >= 0;
    }
    if (ok && zj[pr.c] > 0) rows.push_back(zj);
  }
  if (rows.empty()) return std::nullopt;
  std::sort(rows.begin(), rows.end(),
            [&](const Vec& a, const Vec& b) { return a[pr.m] / a[pr.c] < b[pr.m] / b[pr.c]; });
  pr.n = rows.size();
  pr.zz.assign(pr.n + 1, Sq{});
  pr.z.assign(pr.n + 1, Vec{});
  for (size_t i = 0; i < pr.n; ++i) {
    pr.q.push_back(rows[i][pr.m] / rows[i][pr.c]);
    pr.zz[i + 1] = pr.zz[i];
    pr.z[i + 1] = pr.z[i];
    for (int a = 0; a < pr.p; ++a) {
      pr.z[i + 1][a] += rows[i][a];
      for (int b = 0; b < pr.p; ++b) pr.zz[i + 1][a][b] += rows[i][a] * rows[i][b];
    }
  }
  return pr;
}

ProfileFit finish(const ModelSpec& spec, const Small& s, double w, const std::vector<Point>& points,
                  const std::vector<double>& times) {
  ProfileFit f;
  f.params.assign(s.x.begin(), s.x.begin() + spec.terms.size());
  f.params.push_back(w);
  f.objective = squared_relative_error(spec, f.params, points, times);
  return f;
}

}  // namespace

double squared_relative_error(const ModelSpec& spec, const std::vector<double>& params,
                              const std::vector<Point>& points, const std::vector<double>& times) {
  double ss = 0;
  for (size_t j = 0; j < points.size(); ++j) {
    if (!std::isfinite(times[j]) || times[j] <= 0) continue;
    const double r = model_time(spec, params, points[j]) / times[j] - 1.0;
    ss += r * r;
  }
  return ss;
}

std::optional<ProfileFit> overlap_fit_at(const ModelSpec& spec, const std::vector<Point>& points,
                                         const std::vector<double>& times, double w) {
  const auto pr = make_profile(spec, points, times);
  if (!pr) return std::nullopt;
  return finish(spec, pr->best_at(w), w, points, times);
}

std::optional<ProfileFit> overlap_least_squares(const ModelSpec& spec, const std::vector<Point>& points,
                                                const std::vector<double>& times) {
  const auto pr = make_profile(spec, points, times);
  if (!pr) return std::nullopt;
  // The profile f(w) is continuous but not convex (the regimes change with w): a grid finds the
  // basin, golden section refines inside the grid cells beside the best node. Fewer nodes for
  // large sweeps, where each evaluation costs O(n).
  const int cells = pr->n > 200 ? 20 : 50;
  std::vector<double> f(cells + 1);
  for (int g = 0; g <= cells; ++g) f[g] = pr->best_at(static_cast<double>(g) / cells).f;
  const int g = static_cast<int>(std::min_element(f.begin(), f.end()) - f.begin());
  double lo = std::max(0, g - 1) / double(cells), hi = std::min(cells, g + 1) / double(cells);
  const double phi = (std::sqrt(5.0) - 1) / 2;
  double a = hi - phi * (hi - lo), b = lo + phi * (hi - lo);
  double fa = pr->best_at(a).f, fb = pr->best_at(b).f;
  while (hi - lo > 1e-7) {
    if (fa <= fb) {
      hi = b, b = a, fb = fa;
      a = hi - phi * (hi - lo);
      fa = pr->best_at(a).f;
    } else {
      lo = a, a = b, fa = fb;
      b = lo + phi * (hi - lo);
      fb = pr->best_at(b).f;
    }
  }
  double w = fa <= fb ? a : b, fw = std::min(fa, fb);
  if (f[g] < fw) w = static_cast<double>(g) / cells;
  return finish(spec, pr->best_at(w), w, points, times);
}

}  // namespace hpcsens::model
