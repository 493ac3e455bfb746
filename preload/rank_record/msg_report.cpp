#include "preload/rank_record/msg_report.h"

#include <algorithm>
#include <unordered_map>

#include "common/text_escape.h"
#include "preload/rank_record/rank_report.h"

namespace hpcsens::preload {

MergedMessages merge_messages(const ThreadCounts* const slots[], int n) {
  MergedMessages m;
  std::unordered_map<std::int32_t, PartnerEntry> by_rank;
  for (int s = 0; s < n; ++s) {
    const ThreadCounts& t = *slots[s];
    for (int h = 0; h < kNumHistCalls; ++h)
      for (int b = 0; b < kHistBuckets; ++b) (*m.hist)[h][b] += t.hist[h][b];
    for (const PartnerEntry& e : t.partners.entries) {
      if (e.key == 0) continue;
      PartnerEntry& acc = by_rank[e.rank()];
      acc.key = e.key;
      acc.bytes += e.bytes;
      acc.messages += e.messages;
    }
    m.untracked_bytes += t.partners.untracked_bytes;
    m.untracked_messages += t.partners.untracked_messages;
  }
  m.partners.reserve(by_rank.size());
  for (const auto& [rank, e] : by_rank) m.partners.push_back(e);
  std::sort(m.partners.begin(), m.partners.end(), [](const auto& a, const auto& b) {
    return a.bytes != b.bytes ? a.bytes > b.bytes : a.key < b.key;
  });
  return m;
}

nlohmann::json io_classes(const CallTotals& totals, double seconds_per_tick) {
  nlohmann::json out = nlohmann::json::object();
  for (int id = 0; id < kNumCalls; ++id) {
    const CallSlot& s = totals[id];
    const char* cls = io_class(kCalls[id].category);
    if (s.count == 0 || cls == nullptr) continue;
    auto& c = out[cls];
    if (c.is_null()) c = {{"calls", 0}, {"seconds", 0.0}, {"bytes", 0}};
    c["calls"] = c["calls"].get<std::uint64_t>() + s.count;
    c["seconds"] = c["seconds"].get<double>() + static_cast<double>(s.ticks) * seconds_per_tick;
    c["bytes"] = c["bytes"].get<std::uint64_t>() + s.bytes;
  }
  return out;
}

nlohmann::json msg_sizes(const MsgHistograms& hist) {
  nlohmann::json out = nlohmann::json::object();
  for (int h = 0; h < kNumHistCalls; ++h) {
    int last = kHistBuckets - 1;
    while (last >= 0 && hist[h][last] == 0) --last;
    if (last < 0) continue;
    out[kCalls[kHistCalls[h]].name] =
        std::vector<std::uint64_t>(hist[h].begin(), hist[h].begin() + last + 1);
  }
  return out;
}

void add_partners(const MergedMessages& m, nlohmann::json& rank) {
  if (m.partners.empty() && m.untracked_messages == 0) return;
  nlohmann::json top = nlohmann::json::array();
  std::uint64_t other_ranks = 0, other_bytes = m.untracked_bytes,
                other_messages = m.untracked_messages;
  for (std::size_t i = 0; i < m.partners.size(); ++i) {
    const PartnerEntry& e = m.partners[i];
    if (i < static_cast<std::size_t>(kReportedPartners)) {
      top.push_back({{"rank", e.rank()}, {"bytes", e.bytes}, {"messages", e.messages}});
    } else {
      ++other_ranks;
      other_bytes += e.bytes;
      other_messages += e.messages;
    }
  }
  rank["partners"] = std::move(top);
  rank["partners_other"] = {
      {"ranks", other_ranks}, {"bytes", other_bytes}, {"messages", other_messages}};
  // Traffic of threads beyond the slot pool or to ranks that found a table full: its ranks
  // are unknown, so "ranks" above does not include them.
  if (m.untracked_messages > 0) rank["partners_other"]["untracked_messages"] = m.untracked_messages;
}

nlohmann::json regions_json(const std::vector<RegionResult>& regions) {
  nlohmann::json out = nlohmann::json::object();
  // Names are the program's bytes: encoded losslessly (distinct names, distinct keys), never
  // left for the serialiser to replace (two names would become one key and the record invalid).
  for (const auto& r : regions)
    out[text::encode_outside(r.name)] = {{"count", r.count}, {"wall_s", r.wall_s}, {"mpi_s", r.mpi_s}, {"io_s", r.io_s}};
  return out;
}

double mpi_seconds(const CallTotals& calls, double seconds_per_tick) {
  std::uint64_t ticks = 0;
  for (int id = 0; id < kNumCalls; ++id)
    if (!is_io(kCalls[id].category)) ticks += calls[id].ticks;
  return static_cast<double>(ticks) * seconds_per_tick;
}

std::string fit_to_budget(nlohmann::json& rank, std::size_t budget) {
  std::string text = rank.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  for (const char* key : {"timeline", "callsites", "files", "partners", "msg_sizes", "regions", "io_calls", "mpi_calls"}) {
    if (text.size() <= budget) break;
    if (!rank.contains(key)) continue;
    rank.erase(key);
    if (std::string(key) == "partners") rank.erase("partners_other");
    rank["truncated"] = true;
    text = rank.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  return text;
}

}  // namespace hpcsens::preload
