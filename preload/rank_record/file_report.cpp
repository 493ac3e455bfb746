#include "preload/rank_record/file_report.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/text_escape.h"

namespace hpcsens::preload {
namespace {

using nlohmann::json;

// Plain sums of one or more entries of the same key.
struct Sums {
  std::uint64_t opens = 0, reads = 0, writes = 0, metas = 0, syncs = 0, bytes_read = 0, bytes_written = 0;
  std::uint64_t read_ticks = 0, write_ticks = 0, meta_ticks = 0, sync_ticks = 0, consecutive = 0, sequential = 0, random = 0;
  std::uint64_t read_sizes[kFileSizeBuckets] = {}, write_sizes[kFileSizeBuckets] = {};
  std::uint64_t first_open = 0, last_io = 0;  // ticks, 0: none

  void add(const FileEntry& e) {
    constexpr auto r = std::memory_order_relaxed;
    opens += e.opens.load(r), reads += e.reads.load(r), writes += e.writes.load(r), metas += e.metas.load(r);
    syncs += e.syncs.load(r), sync_ticks += e.sync_ticks.load(r);
    bytes_read += e.bytes_read.load(r), bytes_written += e.bytes_written.load(r);
    read_ticks += e.read_ticks.load(r), write_ticks += e.write_ticks.load(r), meta_ticks += e.meta_ticks.load(r);
    consecutive += e.consecutive.load(r), sequential += e.sequential.load(r), random += e.random.load(r);
    for (int b = 0; b < kFileSizeBuckets; ++b)
      read_sizes[b] += e.read_sizes[b].load(r), write_sizes[b] += e.write_sizes[b].load(r);
    const std::uint64_t f = e.first_open_tick.load(r);
    if (f != 0 && (first_open == 0 || f < first_open)) first_open = f;
    last_io = std::max(last_io, e.last_io_tick.load(r));
  }
  bool counted() const { return opens + reads + writes + metas + syncs > 0; }
  std::uint64_t ticks() const { return read_ticks + write_ticks + meta_ticks + sync_ticks; }
};

json entry_json(const std::string& path, FileApi api, const Sums& s, double spt, std::uint64_t t0) {
  const auto secs = [&](std::uint64_t ticks) { return static_cast<double>(ticks) * spt; };
  const auto since = [&](std::uint64_t tick) { return tick > t0 ? secs(tick - t0) : 0.0; };
  json j = {{"path", text::encode_outside(path)}, {"interface", file_api_name(api)}, {"opens", s.opens},
            {"reads", s.reads}, {"writes", s.writes}, {"meta_ops", s.metas}, {"syncs", s.syncs}, {"bytes_read", s.bytes_read},
            {"bytes_written", s.bytes_written}, {"read_s", secs(s.read_ticks)}, {"write_s", secs(s.write_ticks)},
            {"meta_s", secs(s.meta_ticks)}, {"sync_s", secs(s.sync_ticks)}, {"read_sizes", s.read_sizes}, {"write_sizes", s.write_sizes},
            {"consecutive", s.consecutive}, {"sequential", s.sequential}, {"random", s.random},
            {"last_io_s", since(s.last_io)}};
  if (s.first_open != 0) j["first_open_s"] = since(s.first_open);
  return j;
}

}  // namespace

json files_json(const FileEntry* entries, int n, double spt, std::uint64_t t0_tick) {
  std::map<std::pair<std::string, FileApi>, Sums> merged;
  for (int i = 0; i < n; ++i) {
    const FileEntry& e = entries[i];
    if (e.ready.load(std::memory_order_acquire) != 1) continue;
    Sums one;
    one.add(e);
    if (!one.counted()) continue;  // opened, but no I/O between init and finalize
    merged[{std::string(file_path(e), e.path_len), e.api}].add(e);
  }
  std::vector<std::pair<const std::pair<std::string, FileApi>*, const Sums*>> order;
  for (const auto& [key, sums] : merged) order.emplace_back(&key, &sums);
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.second->ticks() > b.second->ticks(); });
  json out = json::array();
  for (const auto& [key, sums] : order) out.push_back(entry_json(key->first, key->second, *sums, spt, t0_tick));
  return out;
}

}  // namespace hpcsens::preload
