#include "report/running_fraction_view.h"

#include <fmt/core.h>

#include <algorithm>

#include "common/text_escape.h"
#include "record/run_record.h"

namespace hpcsens::report {
namespace {

void count_reason(std::vector<std::pair<std::string, std::size_t>>& v, const std::string& reason) {
  auto it = std::find_if(v.begin(), v.end(), [&](const auto& p) { return p.first == reason; });
  if (it == v.end()) v.emplace_back(reason, 1);
  else ++it->second;
}

// At most three reasons, each with its ranks when they differ from `all`; the rest counted.
std::string reasons_text(const std::vector<std::pair<std::string, std::size_t>>& v, std::size_t all) {
  constexpr std::size_t kShown = 3;
  std::string out;
  for (std::size_t i = 0; i < v.size() && i < kShown; ++i) {
    if (i) out += "; ";
    if (v[i].second != all) out += fmt::format("{} rank(s): ", v[i].second);
    out += text::escape_for_message(v[i].first);
  }
  if (v.size() > kShown) out += fmt::format("; and {} other reasons", v.size() - kShown);
  return out;
}

nlohmann::json reasons_json(const std::vector<std::pair<std::string, std::size_t>>& v) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [reason, ranks] : v) out.push_back({{"reason", reason}, {"ranks", ranks}});
  return out;
}

}  // namespace

RunningFractionSummary running_fraction_summary(const RunScan& s) {
  RunningFractionSummary f;
  f.ranks = s.rows.size();
  for (std::size_t i = 0; i < s.rows.size(); ++i) {
    const RankRow& row = s.rows[i];
    const std::size_t end = i + 1 < s.rows.size() ? s.rows[i + 1].counters_begin : s.counters.size();
    const std::string why = record::running_fraction_reason(end > row.counters_begin, s.names[row.counters_status],
                                                            row.any_running, s.names[row.running_reason]);
    if (!row.any_running) {
      count_reason(f.unknown_because, why);
      continue;
    }
    ++f.known;
    if (f.least_rank < 0 || row.min_running < f.least) f.least = row.min_running, f.least_rank = row.rank;
    if (!why.empty()) count_reason(f.known_because, why);
  }
  return f;
}

std::string running_fraction_line(const RunningFractionSummary& f) {
  if (f.ranks == 0) return "";
  std::string out = "Counter running fraction: ";
  if (f.known > 0) {
    out += fmt::format("{:.1f} % at least (rank {}), {} of {} ranks", 100 * f.least, f.least_rank, f.known, f.ranks);
    if (!f.known_because.empty()) out += " (" + reasons_text(f.known_because, f.known) + ")";
  }
  if (f.known < f.ranks) {
    if (f.known > 0) out += "; ";
    out += fmt::format("not known on {} of {} ranks: ", f.ranks - f.known, f.ranks) +
           reasons_text(f.unknown_because, f.ranks - f.known);
  }
  return out;
}

nlohmann::json running_fraction_json(const RunningFractionSummary& f) {
  return {{"ranks", f.ranks},
          {"known", f.known},
          {"least", f.known > 0 ? nlohmann::json(f.least) : nlohmann::json(nullptr)},
          {"least_rank", f.known > 0 ? nlohmann::json(f.least_rank) : nlohmann::json(nullptr)},
          {"known_because", reasons_json(f.known_because)},
          {"unknown_because", reasons_json(f.unknown_because)}};
}

}  // namespace hpcsens::report
