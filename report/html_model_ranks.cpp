// The per-rank part of a model page (`hpcsens fit --per-rank`): each rank's fitted terms as
// times at the baseline configuration, and the groups of ranks with alike terms.
//
// The model file holds each rank's terms as shares of its modelled time at the baseline (they
// sum to 1; docs/model-format.md). A rank's time there is its wall time, which the job's
// barriers make the job's time, so seconds = share x the baseline's measured time.
#include <fmt/core.h>

#include "report/html_page.h"
#include "report/html_sections.h"
#include "report/json_access.h"

namespace hpcsens::report {

namespace ja = json_access;
using html::json;

namespace {

std::string share_cell(const json& v) {
  return v.is_number() ? fmt::format("{:.1f}", 100 * v.get<double>()) : std::string("-");
}
std::string seconds_cell(const json& v, double time_s) {
  return v.is_number() ? fmt::format("{:.4g}", v.get<double>() * time_s) : std::string("-");
}

}  // namespace

json per_rank_section(const json& model, const std::string& file) {
  json s = html::section("Per-rank terms and groups");
  const json& pr = model["per_rank"];
  const json base = model.value("baseline", json::object());
  const double time_s = ja::number(base, "time_s", file, "baseline");
  const std::string at = fmt::format("{} at {:g} GHz, {:g} GB/s, measured {:.4g} s", ja::text(base, "label", "baseline"),
                                     ja::number(base, "cpu_ghz", file, "baseline"),
                                     ja::number(base, "mem_gbs", file, "baseline"), time_s);
  std::vector<std::string> labels;
  json tc = json::array(), tm = json::array(), tf = json::array();
  Table t;
  t.title = "Per-rank terms at the baseline (" + at + "): share of the rank's time and seconds";
  t.header = {"rank", "fitted", "cpu [%]", "mem [%]", "fixed [%]", "T_cpu [s]", "T_mem [s]", "T_fixed [s]", "error [%]"};
  t.numeric = {true, false, true, true, true, true, true, true, true};
  const json ranks = pr.value("ranks", json::array());
  for (const auto& r : ranks) {
    // A rate the model has no term for is null (not varied by the sweep): it draws no bar.
    const json c = ja::maybe(r, "cpu"), m = ja::maybe(r, "mem"), f = ja::maybe(r, "fixed");
    labels.push_back(std::to_string(r.value("rank", -1)));
    auto secs = [&](const json& v) { return v.is_number() ? json(v.get<double>() * time_s) : json(nullptr); };
    tc.push_back(secs(c)), tm.push_back(secs(m)), tf.push_back(secs(f));
    const json e = ja::maybe(r, "error");
    t.rows.push_back({std::to_string(r.value("rank", -1)), r.value("ok", false) ? "yes" : "no", share_cell(c),
                      share_cell(m), share_cell(f), seconds_cell(c, time_s), seconds_cell(m, time_s),
                      seconds_cell(f, time_s), e.is_number() ? fmt::format("{:.2f}", 100 * e.get<double>()) : "-"});
  }
  if (ranks.size() <= 256 && !ranks.empty()) {
    json chart = html::bar_chart("Per-rank terms at the baseline configuration", "rank", "time at the baseline [s]",
                                 labels, {html::series("T_cpu", tc), html::series("T_mem", tm), html::series("T_fixed", tf)},
                                 true);
    chart["note"] = "Each rank's fitted shares times the baseline's measured time (" + at + ").";
    s["charts"].push_back(chart);
  } else if (!ranks.empty()) {
    s["text"].push_back(fmt::format("{} ranks: see the groups below.", ranks.size()));
  }
  Table groups;
  groups.title = "Groups of ranks with alike terms (mean share of each rank's time at the baseline)";
  groups.header = {"ranks", "count", "cpu [%]", "mem [%]", "fixed [%]", "T_cpu [s]", "T_mem [s]", "T_fixed [s]"};
  groups.numeric = {false, true, true, true, true, true, true, true};
  for (const auto& gr : pr.value("groups", json::array())) {
    const json c = ja::maybe(gr, "cpu"), m = ja::maybe(gr, "mem"), f = ja::maybe(gr, "fixed");
    const json n = ja::maybe(gr, "count");
    groups.rows.push_back({ja::text(gr, "ranks"), n.is_number() ? fmt::format("{}", n.get<long>()) : "-",
                           share_cell(c), share_cell(m), share_cell(f), seconds_cell(c, time_s),
                           seconds_cell(m, time_s), seconds_cell(f, time_s)});
  }
  s["tables"].push_back(html::table_json(groups));
  if (ranks.size() <= 256) s["tables"].push_back(html::table_json(t));
  return s;
}

}  // namespace hpcsens::report
