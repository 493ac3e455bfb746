#include "model/overlap_bounds.h"

#include "model/glpk_guard.h"

#include <glpk.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace hpcsens::model {
namespace {

// Row j of "the run no longer than all components in series", a_j . W >= 1 - s with
// a_j,k = x_k(j) / T_j, is implied by row i whenever a_i <= a_j in every component (W >= 0).
// Only the minimal rows are kept: the same polytope, but a few dozen rows instead of one per
// configuration (GLPK's simplex grows about as rows^2: 21 s for 4,000 configurations).
std::vector<std::vector<double>> minimal_rows(std::vector<std::vector<double>> a) {
  std::sort(a.begin(), a.end());
  std::vector<std::vector<double>> kept;
  double best_second = INFINITY;  // two terms: a row is minimal iff its 2nd entry beats all earlier ones
  for (auto& row : a) {
    if (row.size() == 2) {
      if (row[1] < best_second) best_second = row[1], kept.push_back(std::move(row));
      continue;
    }
    const bool implied = std::any_of(kept.begin(), kept.end(), [&](const std::vector<double>& k) {
      for (size_t c = 0; c < k.size(); ++c)
        if (k[c] > row[c]) return false;
      return true;
    });
    if (!implied) kept.push_back(std::move(row));
  }
  return kept;
}

// The feasible set of W (and optionally an extra variable t >= W_k x_new,k) as a GLPK problem.
// Rows are scaled by 1/T_j so every coefficient is a fraction of the run time. "No component
// longer than the run", W_k x_k(j) / T_j <= 1 + s for every j, is one upper bound per W_k.
class WorkPolytope {
 public:
  WorkPolytope(const std::vector<Term>& terms, const std::vector<Point>& points, double slack,
               const std::vector<double>* t_above = nullptr)
      : k_(static_cast<int>(terms.size())), nvar_(k_ + (t_above ? 1 : 0)), upper_(k_, INFINITY) {
    ia_ = {0}, ja_ = {0}, ar_ = {0};
    std::vector<std::vector<double>> sums;
    for (const auto& p : points) {
      std::vector<double> a(k_);
      for (int k = 0; k < k_; ++k) {
        a[k] = basis(terms[k], p) / p.time_s;
        upper_[k] = std::min(upper_[k], (1.0 + slack) / a[k]);
      }
      sums.push_back(std::move(a));
    }
    for (const auto& a : minimal_rows(std::move(sums))) {
      std::vector<std::pair<int, double>> sum;
      for (int k = 0; k < k_; ++k) sum.push_back({k + 1, a[k]});
      add_row(GLP_LO, 1.0 - slack, 0.0, sum);  // the run no longer than all components in series
    }
    if (t_above)
      for (int k = 0; k < k_; ++k) add_row(GLP_LO, 0.0, 0.0, {{nvar_, 1.0}, {k + 1, -(*t_above)[k]}});
    // Every GLPK call runs guarded: all data it reads lives in members, so a longjmp skips nothing.
    glpk_guarded([this] {
      generation_ = glpk_generation();
      lp_ = glp_create_prob();
      glp_add_cols(lp_, nvar_);
      for (int c = 1; c <= nvar_; ++c)
        if (c <= k_ && std::isfinite(upper_[c - 1])) glp_set_col_bnds(lp_, c, GLP_DB, 0.0, upper_[c - 1]);
        else glp_set_col_bnds(lp_, c, GLP_LO, 0.0, 0.0);
      glp_add_rows(lp_, static_cast<int>(rows_.size()));
      for (size_t r = 0; r < rows_.size(); ++r)
        glp_set_row_bnds(lp_, static_cast<int>(r) + 1, rows_[r].type, rows_[r].lo, rows_[r].hi);
      glp_load_matrix(lp_, static_cast<int>(ia_.size()) - 1, ia_.data(), ja_.data(), ar_.data());
      glp_scale_prob(lp_, GLP_SF_AUTO);
    });
  }
  ~WorkPolytope() {
    if (lp_ && generation_ == glpk_generation()) glp_delete_prob(lp_);
  }
  WorkPolytope(const WorkPolytope&) = delete;
  WorkPolytope& operator=(const WorkPolytope&) = delete;

  // Optimum of sum_c obj[c] * var_c, or nullopt when infeasible/unbounded. Throws GlpkError.
  std::optional<double> optimize(const std::vector<double>& obj, bool maximize) {
    bool ok = false;
    double value = 0;
    glpk_guarded([&] {
      glp_set_obj_dir(lp_, maximize ? GLP_MAX : GLP_MIN);
      for (int c = 1; c <= nvar_; ++c)
        glp_set_obj_coef(lp_, c, c - 1 < static_cast<int>(obj.size()) ? obj[c - 1] : 0.0);
      glp_smcp parm;
      glp_init_smcp(&parm);
      parm.msg_lev = GLP_MSG_OFF;
      parm.presolve = GLP_ON;
      ok = glp_simplex(lp_, &parm) == 0 && glp_get_status(lp_) == GLP_OPT;
      if (ok) value = glp_get_obj_val(lp_);
    });
    if (!ok) return std::nullopt;
    return value;
  }

 private:
  struct RowBounds {
    int type;
    double lo, hi;
  };
  void add_row(int type, double lo, double hi, const std::vector<std::pair<int, double>>& coefs) {
    rows_.push_back({type, lo, hi});
    const int row = static_cast<int>(rows_.size());
    for (auto [c, v] : coefs) ia_.push_back(row), ja_.push_back(c), ar_.push_back(v);
  }

  int k_, nvar_;
  std::vector<double> upper_;  // W_k <= (1 + s) min_j T_j / x_k(j)
  std::vector<RowBounds> rows_;
  std::vector<int> ia_, ja_;
  std::vector<double> ar_;
  glp_prob* lp_ = nullptr;
  std::uint64_t generation_ = 0;
};

std::optional<OverlapBounds> bounds_at(const std::vector<Term>& terms, const std::vector<Point>& points,
                                       double slack) {
  WorkPolytope poly(terms, points, slack);
  OverlapBounds out;
  out.slack = slack;
  out.feasible = true;
  const int k = static_cast<int>(terms.size());
  for (int a = 0; a < k; ++a) {
    std::vector<double> obj(k, 0.0);
    obj[a] = 1.0;
    const auto lo = poly.optimize(obj, false);
    const auto hi = poly.optimize(obj, true);
    if (!lo || !hi) return std::nullopt;
    TermBounds b;
    b.lo = std::max(0.0, *lo);
    b.hi = *hi;
    b.closed_form_hi = std::numeric_limits<double>::infinity();
    for (const auto& p : points)
      b.closed_form_hi = std::min(b.closed_form_hi, p.time_s * (1.0 + slack) / basis(terms[a], p));
    out.terms.push_back(b);
  }
  return out;
}

}  // namespace

OverlapBounds overlap_bounds(const std::vector<Term>& terms, const std::vector<Point>& points, double slack) {
  OverlapBounds none;
  none.feasible = false;
  try {
    for (double s = slack; s <= 0.32 + 1e-12; s *= 2) {
      if (auto b = bounds_at(terms, points, s)) return *b;
      if (s <= 0) s = 0.005;  // a zero slack can only grow by starting somewhere
    }
  } catch (const GlpkError& e) {
    none.unavailable = e.what();
  }
  return none;
}

std::optional<TimeRange> overlap_time_range(const std::vector<Term>& terms, const std::vector<Point>& points,
                                            double slack, double cpu_ghz, double mem_gbs,
                                            std::optional<double> lat_ns) {
  Point at;
  at.cpu_ghz = cpu_ghz, at.mem_gbs = mem_gbs, at.lat_ns = lat_ns;
  return overlap_time_range(terms, points, slack, at);
}

std::optional<TimeRange> overlap_time_range(const std::vector<Term>& terms, const std::vector<Point>& points,
                                            double slack, const Point& at) {
  const int k = static_cast<int>(terms.size());
  std::vector<double> x(k);
  for (int a = 0; a < k; ++a) x[a] = basis(terms[a], at);
  TimeRange r;
  {
    WorkPolytope poly(terms, points, slack);
    const auto hi = poly.optimize(x, true);
    if (!hi) return std::nullopt;
    r.hi = *hi;
  }
  {
    WorkPolytope poly(terms, points, slack, &x);
    std::vector<double> obj(k + 1, 0.0);
    obj[k] = 1.0;
    const auto lo = poly.optimize(obj, false);
    if (!lo) return std::nullopt;
    r.lo = *lo;
  }
  // The LP lets the overlap differ freely between configurations, so on its own it allows a
  // machine faster in every rate to be slower than a measured run. Time never grows when every
  // rate improves: a measured run that is no faster in any term caps the time, one that is no
  // slower in any term floors it (each with the same noise slack as the LP).
  for (const auto& p : points) {
    bool measured_slower = true, measured_faster = true;
    for (int a = 0; a < k; ++a) {
      const double xp = basis(terms[a], p);  // seconds per unit of work there; larger = slower
      measured_slower = measured_slower && xp >= x[a];
      measured_faster = measured_faster && xp <= x[a];
    }
    if (measured_slower) r.hi = std::min(r.hi, p.time_s * (1.0 + slack));
    if (measured_faster) r.lo = std::max(r.lo, p.time_s * (1.0 - slack));
  }
  r.lo = std::min(r.lo, r.hi);  // noisy repeats of one configuration may cross; keep an interval
  return r;
}

}  // namespace hpcsens::model
