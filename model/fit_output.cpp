#include "model/fit_output.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "common/errors.h"
#include "model/energy_render.h"
#include "model/fit_tables.h"
#include "model/model_json.h"
#include "model/number_format.h"

namespace hpcsens::model {
namespace {

constexpr size_t kMaxRankRows = 64;

std::string percent_or_na(double f) { return std::isfinite(f) ? percent(f) : "n/a"; }

std::string config_line(const ModelReport& r) {
  const Point& b = r.points[r.baseline];
  return fmt::format("{} configurations; baseline '{}' ({:g} GHz, {}) measured {:.4g} s{}", r.points.size(),
                     b.label, b.cpu_ghz, gbs_text(b.mem_gbs), b.time_s,
                     r.baseline_reason.empty() ? "" : "\nbaseline: " + r.baseline_reason);
}

std::string diagnostics_line(const ModelReport& r) {
  return fmt::format(
      "MAPE {}  max error {}  slope {:.4f}  intercept {:.4g} s  R² {:.5f}  LOOCV MAPE {}  "
      "condition {:.3g}  stderr by {}  intervals by {}{}",
      percent_or_na(r.diag.mape), percent_or_na(r.diag.max_abs_err), r.diag.slope, r.diag.intercept, r.diag.r2,
      percent_or_na(r.diag.loocv_mape), r.condition_number, r.stderr_method, r.interval_method,
      r.loo_closed_form ? " (leave-one-out in closed form)" : "");
}

std::string verdict_block(const ModelReport& r, bool markdown) {
  std::string o = fmt::format("{}verdict: {}{}\n", markdown ? "**" : "", r.verdict.word, markdown ? "**\n" : "");
  for (const auto& why : r.verdict.reasons) o += (markdown ? "- " : "  - ") + why + "\n";
  return o;
}

std::string render_table(const ModelReport& r, bool markdown) {
  std::string o;
  const char* sep = markdown ? " | " : "  ";
  auto row = [&](std::vector<std::string> cells, const std::vector<int>& widths) {
    std::string line = markdown ? "| " : "  ";
    for (size_t i = 0; i < cells.size(); ++i)
      line += fmt::format("{:<{}}", cells[i], markdown ? 0 : widths[i]) + (i + 1 < cells.size() ? sep : "");
    return line + (markdown ? " |\n" : "\n");
  };
  auto rule = [&](size_t n) {
    if (!markdown) return std::string();
    std::string s = "|";
    for (size_t i = 0; i < n; ++i) s += "---|";
    return s + "\n";
  };
  if (r.emulated) o += markdown ? "**EMULATED DATA — not measured**\n\n" : "EMULATED DATA — not measured\n";
  o += fmt::format("{}hpcsens fit: model {}{}\n", markdown ? "### " : "", r.spec.name(),
                   r.robust != Robust::none ? fmt::format(" (robust loss: {})", robust_name(r.robust)) : "");
  const char* eol = markdown ? "\n\n" : "\n";  // Markdown needs blank lines between paragraphs
  if (!r.app.empty()) o += "application: " + r.app + eol;
  if (!r.region.empty())
    o += "region: " + r.region + " (each run's time: its slowest rank's time in the region)" + eol;
  o += config_line(r) + eol;
  o += verdict_block(r, markdown);
  if (!r.selection_reason.empty()) o += "model choice: " + r.selection_reason + eol;
  o += "\n";
  const std::vector<int> tw{5, 24, 12, 26, 30};
  o += row({"term", "work", "stderr", "overlap bounds", "share at baseline [bounds]"}, tw) + rule(5);
  for (const auto& t : r.terms)
    o += row({term_name(t.term), fmt::format("{:.5g} {}", t.work, term_unit(t.term)), fmt::format("{:.3g}", t.stderr_),
              r.bounds.feasible ? fmt::format("[{:.4g}, {:.4g}]", t.bounds.lo, t.bounds.hi) : "infeasible",
              fmt::format("{} [{}, {}]", percent_or_na(t.share), percent_or_na(t.share_lo), percent_or_na(t.share_hi))},
             tw);
  if (r.overlap_w)
    o += fmt::format("\noverlap fraction w = {:.3f} ± {:.3f} (0: components in series, 1: fully overlapped)\n",
                     *r.overlap_w, *r.overlap_w_stderr);
  o += fmt::format("\noverlap bounds allow {} noise on each time\n\n", percent_or_na(r.bounds.slack));
  int label_w = 14;  // widen for long sweep labels so the columns stay aligned
  for (const auto& p : r.points) label_w = std::max(label_w, static_cast<int>(p.label.size()));
  const std::vector<int> pw{label_w, 8, 8, 11, 11, 8, 8, 5};
  o += row({"config", "cpu_ghz", "mem_gbs", "observed_s", "predicted_s", "error", "loocv", "reps"}, pw) + rule(8);
  for (size_t j = 0; j < r.points.size(); ++j) {
    const auto& p = r.points[j];
    o += row({p.label, fmt::format("{:g}", p.cpu_ghz), table_number(p.mem_gbs), fmt::format("{:.4g}", p.time_s),
              fmt::format("{:.4g}", r.predicted[j]), fmt::format("{:+.2f}%", 100 * r.diag.rel_err[j]),
              std::isfinite(r.loocv_err[j]) ? fmt::format("{:+.2f}%", 100 * r.loocv_err[j]) : "n/a",
              std::to_string(p.reps)},
             pw);
  }
  o += "\n" + diagnostics_line(r) + "\n";
  if (!r.sensitivity.empty()) o += "\nsensitivity: " + r.sensitivity + "\n";
  if (!r.notes.empty()) {
    o += "\nnotes:\n";
    for (const auto& n : r.notes) o += (markdown ? "- " : "  - ") + n + "\n";
  }
  if (r.has_per_rank) {
    o += "\nper-rank bottlenecks (shares of modelled time at the baseline)\n\n";
    const std::vector<int> rw{6, 8, 8, 8, 8};
    o += row({"rank", "cpu", "memory", "fixed", "error"}, rw) + rule(5);
    // Thousands of rows help nobody on a terminal; the groups below summarise them and the
    // model JSON keeps every rank.
    const size_t shown = std::min(r.per_rank.size(), kMaxRankRows);
    // A rate without a term (not varied by the sweep) gets no share, not 0 %.
    auto cpu_cell = [&](double v) { return r.spec.has(Term::cpu) ? percent_or_na(v) : std::string("not varied"); };
    auto mem_cell = [&](double v) { return r.spec.has(Term::mem) ? percent_or_na(v) : std::string("not varied"); };
    for (size_t i = 0; i < shown; ++i) {
      const auto& s = r.per_rank[i];
      o += s.ok ? row({std::to_string(s.rank), cpu_cell(s.cpu), mem_cell(s.mem), percent_or_na(s.fixed),
                       percent_or_na(s.error)},
                      rw)
                : row({std::to_string(s.rank), "n/a", "n/a", "n/a", "too few times"}, rw);
    }
    if (shown < r.per_rank.size())
      o += fmt::format("  ... {} more ranks (all of them are in the model JSON under per_rank.ranks)\n",
                       r.per_rank.size() - shown);
    o += "\nranks that behave alike (mean shares; members within 10 points of them)\n\n";
    const std::vector<int> gw{6, 8, 8, 8, 20};
    o += row({"count", "cpu", "memory", "fixed", "ranks"}, gw) + rule(5);
    for (const auto& g : r.groups)
      o += row({std::to_string(g.ranks.size()), cpu_cell(g.cpu), mem_cell(g.mem), percent_or_na(g.fixed),
                format_rank_list(g.ranks)},
               gw);
    o += "\nwhich ranks gain from which resource:\n";
    for (const auto& g : r.groups)
      o += fmt::format("{}ranks {}: {}\n", markdown ? "- " : "  ", format_rank_list(g.ranks),
                       share_sentence(r.spec, g.cpu, g.mem));
  }
  o += render_energy(r.energy, markdown);
  if (!r.warnings.empty()) {
    o += "\nwarnings:\n";
    for (const auto& w : r.warnings) o += (markdown ? "- " : "  - ") + w + "\n";
  }
  return o;
}

}  // namespace

std::string with_region_column(const std::string& csv, const std::string& region) {
  if (region.empty()) return csv;
  std::string out;
  bool header = true;
  for (std::size_t at = 0; at < csv.size();) {
    const std::size_t end = std::min(csv.find('\n', at), csv.size());
    out += (header ? std::string("region") : csv_cell(region)) + "," + csv.substr(at, end - at) + "\n";
    header = false;
    at = end + 1;
  }
  return out;
}

std::string render_fit(const ModelReport& rep, const std::string& format, const std::string& table) {
  if (format == "table") return render_table(rep, false);
  if (format == "md") return render_table(rep, true);
  if (format == "json") return to_json(rep).dump(2) + "\n";
  if (format == "csv") return with_region_column(render_fit_csv(rep, table), rep.region);
  throw InputError("--format", "unknown format '" + format + "' (expected table, json, csv or md)");
}

}  // namespace hpcsens::model
