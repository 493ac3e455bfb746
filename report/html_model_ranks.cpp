// The per-rank part of a model page (`hpcsens fit --per-rank`): each rank's fitted terms as
// times at the baseline configuration, and the groups of ranks with alike terms.
#include <fmt/core.h>

#include "report/html_page.h"
#include "report/html_sections.h"
#include "report/json_access.h"

namespace hpcsens::report {

namespace ja = json_access;
using html::json;

json per_rank_section(const json& model, const std::string& file) {
  json s = html::section("Per-rank terms and groups");
  const json& pr = model["per_rank"];
  const json base = model.value("baseline", json::object());
  const double cpu = ja::number(base, "cpu_ghz", file, "baseline"), mem = ja::number(base, "mem_gbs", file, "baseline");
  std::vector<std::string> labels;
  json tc = json::array(), tm = json::array(), tf = json::array();
  Table t;
  t.title = fmt::format("Per-rank works (times at the baseline: {} GHz, {} GB/s)", cpu, mem);
  t.header = {"rank", "fitted", "cpu [Gcycles]", "mem [GB]", "fixed [s]", "error [%]"};
  t.numeric = {true, false, true, true, true, true};
  const json ranks = pr.value("ranks", json::array());
  auto g = [](const json& v) { return v.is_number() ? fmt::format("{:.5g}", v.get<double>()) : std::string("-"); };
  for (const auto& r : ranks) {
    // A rate the model has no term for is null (not varied by the sweep): it draws no bar.
    auto num = [&](const char* k) { const json v = ja::maybe(r, k); return v.is_number() ? v.get<double>() : 0.0; };
    const double c = num("cpu"), m = num("mem"), f = num("fixed");
    labels.push_back(std::to_string(r.value("rank", -1)));
    tc.push_back(c / cpu), tm.push_back(m / mem), tf.push_back(f);
    const json e = ja::maybe(r, "error");
    t.rows.push_back({std::to_string(r.value("rank", -1)), r.value("ok", false) ? "yes" : "no", g(ja::maybe(r, "cpu")),
                      g(ja::maybe(r, "mem")), g(ja::maybe(r, "fixed")),
                      e.is_number() ? fmt::format("{:.2f}", 100 * e.get<double>()) : "-"});
  }
  if (ranks.size() <= 256 && !ranks.empty())
    s["charts"].push_back(html::bar_chart("Per-rank terms at the baseline configuration", "rank", "time [s]", labels,
                                          {html::series("T_cpu", tc), html::series("T_mem", tm),
                                           html::series("T_fixed", tf)},
                                          true));
  else if (!ranks.empty())
    s["text"].push_back(fmt::format("{} ranks: see the groups below.", ranks.size()));
  Table groups;
  groups.title = "Groups of ranks with alike terms";
  groups.header = {"ranks", "count", "cpu [Gcycles]", "mem [GB]", "fixed [s]"};
  groups.numeric = {false, true, true, true, true};
  for (const auto& gr : pr.value("groups", json::array()))
    groups.rows.push_back({ja::text(gr, "ranks"), g(ja::maybe(gr, "count")), g(ja::maybe(gr, "cpu")),
                           g(ja::maybe(gr, "mem")), g(ja::maybe(gr, "fixed"))});
  s["tables"].push_back(html::table_json(groups));
  if (ranks.size() <= 256) s["tables"].push_back(html::table_json(t));
  return s;
}

}  // namespace hpcsens::report
