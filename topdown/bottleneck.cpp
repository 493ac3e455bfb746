#include "topdown/bottleneck.h"

#include "common/text_escape.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace hpcsens::topdown {
namespace {

std::string pct(const std::optional<double>& v, bool csv) {
  if (!v || !std::isfinite(*v)) return csv ? "" : "-";
  char buf[32];
  // Within the mismeasure tolerance values are clamped: [-0.05, 0] shows as 0 %.
  const double x = std::clamp(*v, 0.0, 1.0);
  if (csv)
    std::snprintf(buf, sizeof buf, "%.4f", x);
  else
    std::snprintf(buf, sizeof buf, "%.1f%%", 100 * x);
  return buf;
}

std::string num(const std::optional<double>& v, int decimals, bool csv) {
  if (!v || !std::isfinite(*v)) return csv ? "" : "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, *v);
  return buf;
}

std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string render(const std::string& title, const std::vector<std::string>& header,
                   const std::vector<std::vector<std::string>>& rows, TableFormat f) {
  std::string out;
  if (f == TableFormat::kCsv) {
    out += "# " + title + "\n";
    auto line = [&](const std::vector<std::string>& r) {
      for (std::size_t i = 0; i < r.size(); ++i) out += (i ? "," : "") + csv_cell(r[i]);
      out += "\n";
    };
    line(header);
    for (const auto& r : rows) line(r);
    return out;
  }
  if (f == TableFormat::kMarkdown) {
    out += "### " + title + "\n\n";
    auto line = [&](const std::vector<std::string>& r) {
      out += "|";
      for (const auto& c : r) {
        std::string e;
        for (char ch : c) e += ch == '|' ? std::string("\\|") : std::string(1, ch);
        out += " " + e + " |";
      }
      out += "\n";
    };
    line(header);
    out += "|";
    for (std::size_t i = 0; i < header.size(); ++i) out += "---|";
    out += "\n";
    for (const auto& r : rows) line(r);
    return out;
  }
  std::vector<std::size_t> w(header.size(), 0);
  for (std::size_t i = 0; i < header.size(); ++i) w[i] = header[i].size();
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.size() && i < w.size(); ++i) w[i] = std::max(w[i], r[i].size());
  out += title + "\n";
  auto line = [&](const std::vector<std::string>& r) {
    std::string l;
    for (std::size_t i = 0; i < r.size(); ++i) {
      l += r[i];
      if (i + 1 < r.size()) l += std::string(w[i] - r[i].size() + 2, ' ');
    }
    while (!l.empty() && l.back() == ' ') l.pop_back();
    out += "  " + l + "\n";
  };
  line(header);
  for (const auto& r : rows) line(r);
  return out;
}

std::string line_for(const std::string& s, TableFormat f) {
  if (f == TableFormat::kCsv) return "# " + s + "\n";
  return s + "\n";
}

// Value of the last node on the path, for "Backend > Memory (38.0%)".
std::optional<double> node_value(const TopdownMetrics& m, const std::string& name) {
  if (name == "Backend Bound") return m.backend_bound;
  if (name == "Frontend Bound") return m.frontend_bound;
  if (name == "Bad Speculation") return m.bad_speculation;
  if (name == "Memory Bound") return m.memory_bound;
  if (name == "Core Bound") return m.core_bound;
  if (name == "Fetch Latency") return m.fetch_latency;
  if (name == "Fetch Bandwidth") return m.fetch_bandwidth;
  if (name == "Branch Mispredicts") return m.branch_mispredicts;
  if (name == "Machine Clears") return m.machine_clears;
  if (name == "Backend stalls") return m.backend_stalls;
  if (name == "Frontend stalls") return m.frontend_stalls;
  return std::nullopt;
}

// The group's path (all members share it) with the mean value of its last node.
std::string path_cell(const std::vector<const TopdownMetrics*>& members) {
  const TopdownMetrics& m = *members.front();
  if (!m.ok) return "unavailable";
  if (!m.mismeasured.empty()) return "mismeasured";
  const auto path = flagged_path(m);
  if (path.empty()) return "none flagged";
  double sum = 0;
  int n = 0;
  for (const auto* x : members)
    if (auto v = node_value(*x, path.back())) {
      sum += *v;
      ++n;
    }
  std::string s = path_text(path);
  if (n > 0) s += " (" + pct(sum / n, false) + ")";
  const std::string why = level2_not_counted(m, path);
  return why.empty() ? s : s + " > level 2 not counted (" + why + ")";
}

std::vector<double> l1_vector(const TopdownMetrics& m) {
  if (m.method == Method::kStallRatios)
    return {m.frontend_stalls.value_or(0), m.backend_stalls.value_or(0)};
  return {m.retiring.value_or(0), m.bad_speculation.value_or(0), m.frontend_bound.value_or(0),
          m.backend_bound.value_or(0)};
}

std::string group_key(const TopdownMetrics& m) {
  if (!m.ok) return "unavailable";
  if (!m.mismeasured.empty()) return "mismeasured";
  return path_text(flagged_path(m));
}

template <class F>
std::optional<double> mean_of(const std::vector<const TopdownMetrics*>& ms, F get) {
  double s = 0;
  int n = 0;
  for (auto* m : ms)
    if (auto v = get(*m)) {
      s += *v;
      ++n;
    }
  if (n == 0) return std::nullopt;
  return s / n;
}

}  // namespace

std::string rank_ranges(const std::vector<int>& ranks) {
  std::string out;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (!out.empty()) out += ",";
    out += std::to_string(ranks[i]);
    if (j > i) out += "-" + std::to_string(ranks[j]);
    i = j + 1;
  }
  return out;
}

std::vector<std::vector<std::size_t>> group_alike(const std::vector<TopdownMetrics>& ranks,
                                                  double tolerance) {
  std::vector<std::vector<std::size_t>> groups;
  std::vector<std::string> keys;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const std::string key = group_key(ranks[i]);
    const auto v = l1_vector(ranks[i]);
    bool placed = false;
    for (std::size_t g = 0; g < groups.size() && !placed; ++g) {
      if (keys[g] != key) continue;
      // Compare with the group's first rank so a group cannot drift along a chain of ranks.
      const auto ref = l1_vector(ranks[groups[g].front()]);
      bool close = ref.size() == v.size();
      for (std::size_t k = 0; close && k < v.size(); ++k) close = std::fabs(ref[k] - v[k]) <= tolerance;
      // Mismeasured ranks show their out-of-range values, not a mean: they share a row only
      // when those values are the same.
      if (key == "mismeasured") close = ranks[groups[g].front()].mismeasured == ranks[i].mismeasured;
      if (close || key == "unavailable") {
        groups[g].push_back(i);
        placed = true;
      }
    }
    if (!placed) {
      groups.push_back({i});
      keys.push_back(key);
    }
  }
  return groups;
}

BottleneckData bottleneck_data(const record::RunRecord& rec, bool csv, bool all_ranks) {
  // The one-line answers quote the record (its counter status, event-set and event names): printed,
  // they must not drive the terminal, whichever of them came from a hostile file or environment.
  auto only = [](const std::string& line) {
    BottleneckData d;
    d.line = text::escape_for_message(line);
    return d;
  };
  std::vector<TopdownMetrics> ms;
  std::string event_set;
  bool any_mux = false;
  bool any_fraction = false;
  double min_running = 1.0;
  ms.reserve(rec.ranks.size());
  std::string looked_up;  // ranks nearly always share one event set: look its table up once
  TopdownTable rank_table = table_by_name(looked_up);
  for (const auto& r : rec.ranks) {
    if (r.event_set != looked_up) rank_table = table_by_name(looked_up = r.event_set);
    ms.push_back(compute_metrics(rank_table, r.event_set, r.counters));
    if (r.counters_status != "ok") mark_counters_failed(ms.back(), r.counters_status);
    if (r.multiplexed) refuse_multiplexed_remainder(ms.back());
    if (event_set.empty()) event_set = r.event_set;
    any_mux = any_mux || r.multiplexed;
    for (const auto& [name, frac] : r.counter_running_fraction) {
      min_running = std::min(min_running, frac);
      any_fraction = true;
    }
  }
  const bool any_usable = std::any_of(ms.begin(), ms.end(), [](const TopdownMetrics& m) { return m.ok; });
  // The record-level status names the first rank that could not count; the section collapses
  // to one line only when no rank has usable counts (the others are shown as usual).
  const bool other_set = !event_set.empty() && table_by_name(event_set).name.empty();
  if (rec.counters_status != "ok" && !any_usable && other_set) {
    // Counters failed for a run that never asked for Top-Down: say that first, then why. Top-Down
    // needs the very counters that failed, so the line does not send the user to --events topdown.
    return only("Top-Down: not measured (event set '" + event_set +
                "'; --events topdown needs the counters that failed here); " + rec.counters_status);
  }
  if (rec.counters_status != "ok" && !any_usable) {
    const std::string& st = rec.counters_status;
    std::string line = st.rfind("Top-Down", 0) == 0 ? st : "Top-Down unavailable: " + st;
    // PAPI's "Event does not exist" for a core event means the CPU exposes no such counter,
    // which on x86 servers almost always means a VM without PMU passthrough.
    const bool absent = st.find("does not exist") != std::string::npos ||
                        st.find("not supported") != std::string::npos;
    if (absent && st.find("PMU") == std::string::npos)
      line += " (no hardware PMU here? e.g. a virtual machine without PMU passthrough; see hpcsens doctor)";
    return only(line);
  }
  if (rec.ranks.empty()) return only("Top-Down: no ranks in the record");
  const TopdownTable table = table_by_name(event_set);
  if (table.name.empty()) {
    return only("Top-Down: not measured (event set '" + (event_set.empty() ? "none" : event_set) +
                "'; run with --events topdown)");
  }
  if (!any_usable) {
    const std::string why = ms.front().why_not.empty() ? "no counts" : ms.front().why_not;
    return only("Top-Down unavailable: " + why + " (event set " + event_set + ")");
  }

  const bool stalls = table.method == Method::kStallRatios;
  std::vector<std::string> header = {all_ranks ? "rank" : "ranks"};
  if (!all_ranks) header.push_back("n");
  if (stalls) {
    header.insert(header.end(), {"FE stall cycles", "BE stall cycles"});
  } else {
    header.insert(header.end(), {"Retiring", "Bad Spec", "Frontend", "Backend"});
  }
  header.insert(header.end(), {"flagged path", "IPC", "GHz", "notes"});

  std::vector<std::vector<std::size_t>> groups;
  if (all_ranks) {
    for (std::size_t i = 0; i < ms.size(); ++i) groups.push_back({i});
  } else {
    groups = group_alike(ms);
  }

  std::vector<std::vector<std::string>> rows;
  for (const auto& g : groups) {
    std::vector<const TopdownMetrics*> members;
    std::vector<int> rank_ids;
    bool mux = false;
    for (auto i : g) {
      members.push_back(&ms[i]);
      rank_ids.push_back(rec.ranks[i].rank);
      mux = mux || rec.ranks[i].multiplexed;
    }
    std::sort(rank_ids.begin(), rank_ids.end());
    const TopdownMetrics& first = *members.front();
    std::string ranks_text = rank_ranges(rank_ids);
    // Scattered ranks of a large job would make the row unreadable; CSV keeps the full list.
    constexpr std::size_t kMaxRanksText = 40;
    if (!csv && ranks_text.size() > kMaxRanksText) {
      const auto cut = ranks_text.rfind(',', kMaxRanksText);
      ranks_text = ranks_text.substr(0, cut == std::string::npos ? kMaxRanksText : cut) + ",...";
    }
    std::vector<std::string> row = {ranks_text};
    if (!all_ranks) row.push_back(std::to_string(rank_ids.size()));
    // A group's numbers are the mean over its members (they agree within the tolerance).
    auto cell = [&](std::optional<double> TopdownMetrics::*field) {
      if (!first.ok || !first.mismeasured.empty()) return std::string(csv ? "" : "-");
      return pct(mean_of(members, [&](const TopdownMetrics& m) { return m.*field; }), csv);
    };
    if (stalls) {
      row.push_back(cell(&TopdownMetrics::frontend_stalls));
      row.push_back(cell(&TopdownMetrics::backend_stalls));
    } else {
      row.push_back(cell(&TopdownMetrics::retiring));
      row.push_back(cell(&TopdownMetrics::bad_speculation));
      row.push_back(cell(&TopdownMetrics::frontend_bound));
      row.push_back(cell(&TopdownMetrics::backend_bound));
    }
    row.push_back(path_cell(members));
    row.push_back(num(mean_of(members, [](const TopdownMetrics& m) { return m.ipc; }), 2, csv));
    row.push_back(num(mean_of(members, [](const TopdownMetrics& m) { return m.ghz; }), 2, csv));
    std::vector<std::string> notes;
    if (mux) notes.push_back("multiplexed");
    if (!first.ok) notes.push_back(first.why_not);
    for (const auto& s : first.mismeasured) notes.push_back(s);
    if (first.smt_contention && first.ok && first.mismeasured.empty())
      notes.push_back("SMT contention " + pct(mean_of(members, [](const TopdownMetrics& m) {
                        return m.smt_contention;
                      }), false));
    if (first.from_perf_metrics) notes.push_back("PERF_METRICS");
    std::string n;
    for (const auto& s : notes) n += (n.empty() ? "" : "; ") + s;
    row.push_back(n);
    rows.push_back(std::move(row));
  }

  std::string title = "Top-Down (" + table.name + ", " +
                      (stalls ? "stall-cycle ratios, not slots" : "fraction of slots") +
                      (any_mux ? ", MULTIPLEXED" : "") + ")";
  BottleneckData d;
  d.title = std::move(title);
  d.header = std::move(header);
  d.rows = std::move(rows);

  // Job verdict: the path shared by most ranks (ties: the one with the larger total compute),
  // named as the job's bottleneck only when more than half of the measured ranks share it.
  std::map<std::string, std::pair<int, double>> votes;
  std::map<std::string, std::string> gap;  // per path: why its level 2 was not counted
  int measured = 0;
  for (std::size_t i = 0; i < ms.size(); ++i) {
    if (!ms[i].ok || !ms[i].mismeasured.empty()) continue;
    ++measured;
    const std::string key = path_text(flagged_path(ms[i]));
    auto& v = votes[key];
    if (v.first == 0) gap[key] = level2_not_counted(ms[i], flagged_path(ms[i]));
    v.first += 1;
    v.second += rec.ranks[i].compute_s;
  }
  std::string verdict;
  if (measured == 0) {
    verdict = "Job bottleneck: unknown (all ranks mismeasured or unavailable)";
  } else {
    auto best = votes.begin();
    for (auto it = votes.begin(); it != votes.end(); ++it)
      if (it->second.first > best->second.first ||
          (it->second.first == best->second.first && it->second.second > best->second.second))
        best = it;
    std::string name = best->first == "none" ? std::string("none flagged (within the HPC ranges)") : best->first;
    if (!gap[best->first].empty()) name += " > level 2 not counted (" + gap[best->first] + ")";
    const std::string count =
        std::to_string(best->second.first) + " of " + std::to_string(ms.size()) + " ranks";
    if (2 * best->second.first > measured)
      verdict = "Job bottleneck: " + name + " (" + count + ")";
    else
      verdict = "Job bottleneck: no common bottleneck: " + std::to_string(votes.size()) +
                " different paths (most common: " + name + ", " + count + ")";
  }
  if (measured < static_cast<int>(ms.size()))
    verdict += "; " + std::to_string(ms.size() - measured) + " rank(s) mismeasured or unavailable";
  if (any_mux) {
    char buf[96];
    if (any_fraction)
      std::snprintf(buf, sizeof buf, "; values multiplexed (min running fraction %.0f%%), ratios mix time slices",
                    100 * min_running);
    else
      std::snprintf(buf, sizeof buf, "; values multiplexed, ratios mix time slices");
    verdict += buf;
  }
  d.line = std::move(verdict);
  return d;
}

std::string bottleneck_section(const record::RunRecord& rec, TableFormat format, bool all_ranks) {
  const BottleneckData d = bottleneck_data(rec, format == TableFormat::kCsv, all_ranks);
  if (d.header.empty()) return line_for(d.line, format);
  std::string out = render(d.title, d.header, d.rows, format);
  // Markdown: a blank line ends the table, so the verdict is not read as one more row.
  if (format == TableFormat::kMarkdown) out += "\n";
  return out + line_for(d.line, format);
}

}  // namespace hpcsens::topdown
