#include "model/nnls.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace hpcsens::model {
namespace {

using Rows = std::vector<std::vector<double>>;

// Least squares over the free columns only (the others held at 0), by the normal equations:
// p <= 5 and the columns are scaled by 1/T, so their conditioning is that of the rates.
std::optional<std::vector<double>> solve_free(const Rows& a, const std::vector<double>& b, const std::vector<bool>& free) {
  std::vector<std::size_t> idx;
  for (std::size_t k = 0; k < free.size(); ++k)
    if (free[k]) idx.push_back(k);
  const std::size_t m = idx.size();
  std::vector<std::vector<double>> g(m, std::vector<double>(m + 1, 0.0));  // [A^T A | A^T b]
  for (std::size_t j = 0; j < a.size(); ++j)
    for (std::size_t r = 0; r < m; ++r) {
      for (std::size_t c = 0; c < m; ++c) g[r][c] += a[j][idx[r]] * a[j][idx[c]];
      g[r][m] += a[j][idx[r]] * b[j];
    }
  for (std::size_t c = 0; c < m; ++c) {  // Gaussian elimination with partial pivoting
    std::size_t piv = c;
    for (std::size_t r = c + 1; r < m; ++r)
      if (std::fabs(g[r][c]) > std::fabs(g[piv][c])) piv = r;
    if (!(std::fabs(g[piv][c]) > 1e-12 * std::max(1.0, std::fabs(g[c][c])))) return std::nullopt;
    std::swap(g[c], g[piv]);
    for (std::size_t r = 0; r < m; ++r) {
      if (r == c) continue;
      const double f = g[r][c] / g[c][c];
      for (std::size_t k = c; k <= m; ++k) g[r][k] -= f * g[c][k];
    }
  }
  std::vector<double> s(free.size(), 0.0);
  for (std::size_t r = 0; r < m; ++r) s[idx[r]] = g[r][m] / g[r][r];
  return s;
}

// The negative half-gradient A^T (b - A x): a held column with a positive entry would lower
// the objective if freed (the KKT condition fails there).
std::vector<double> descent(const Rows& a, const std::vector<double>& b, const std::vector<double>& x) {
  std::vector<double> w(x.size(), 0.0);
  for (std::size_t j = 0; j < a.size(); ++j) {
    double r = b[j];
    for (std::size_t k = 0; k < x.size(); ++k) r -= a[j][k] * x[k];
    for (std::size_t k = 0; k < x.size(); ++k) w[k] += a[j][k] * r;
  }
  return w;
}

// Lawson-Hanson's inner loop: move from x toward the free-set solution, holding at 0 every
// column that would turn negative, until the free-set solution is strictly positive.
bool inner_loop(const Rows& a, const std::vector<double>& b, std::vector<double>& x, std::vector<bool>& free) {
  for (std::size_t guard = 0; guard <= x.size(); ++guard) {
    const auto s = solve_free(a, b, free);
    if (!s) return false;
    double alpha = 1.0;
    for (std::size_t k = 0; k < x.size(); ++k)
      if (free[k] && (*s)[k] <= 0) alpha = std::min(alpha, x[k] / (x[k] - (*s)[k]));
    for (std::size_t k = 0; k < x.size(); ++k) x[k] += alpha * ((*s)[k] - x[k]);
    if (alpha >= 1.0) return true;
    for (std::size_t k = 0; k < x.size(); ++k)
      if (free[k] && x[k] <= 1e-15 * std::max(1.0, std::fabs((*s)[k]))) free[k] = false, x[k] = 0.0;
  }
  return true;
}

}  // namespace

std::optional<std::vector<double>> nonneg_least_squares(const Rows& rows, const std::vector<double>& b,
                                                        std::vector<double> start) {
  const std::size_t p = rows.empty() ? start.size() : rows.front().size();
  std::vector<double> x(p, 0.0);
  std::vector<bool> free(p, false);
  for (std::size_t k = 0; k < std::min(p, start.size()); ++k)
    if (start[k] > 0) x[k] = start[k], free[k] = true;
  if (std::any_of(free.begin(), free.end(), [](bool f) { return f; }) && !inner_loop(rows, b, x, free))
    return std::nullopt;
  double scale = 0;  // tolerance of the KKT test, relative to the size of A^T b
  for (double v : descent(rows, b, std::vector<double>(p, 0.0))) scale = std::max(scale, std::fabs(v));
  for (std::size_t iter = 0; iter < 3 * p + 3; ++iter) {
    const auto w = descent(rows, b, x);
    std::size_t best = p;
    for (std::size_t k = 0; k < p; ++k)
      if (!free[k] && w[k] > 1e-12 * scale && (best == p || w[k] > w[best])) best = k;
    if (best == p) return x;
    free[best] = true;
    if (!inner_loop(rows, b, x, free)) return std::nullopt;
  }
  return x;
}

}  // namespace hpcsens::model
