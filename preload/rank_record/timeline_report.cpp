#include "preload/rank_record/timeline_report.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "call_table.h"
#include "preload/account/rss_sampler.h"

namespace hpcsens::preload {
namespace {

// 100 ns steps: far below a bin (at least ~1 ms), and the record stays short (a 100,000-rank job
// carries 256 x 3 of these per rank).
double rounded(double s) { return std::round(s * 1e7) / 1e7; }

}  // namespace

nlohmann::json timeline_json(const Timeline& t, double spt, const char* (*region_name)(int)) {
  const int n = t.used_bins();
  const std::uint64_t width = std::uint64_t{1} << t.shift();
  nlohmann::json compute = nlohmann::json::array(), mpi = nlohmann::json::array(), io = nlohmann::json::array(),
                 top = nlohmann::json::array(), calls = nlohmann::json::array();
  std::map<std::uint16_t, int> call_index;
  for (int i = 0; i < n; ++i) {
    const TimelineBin& b = t.bin(i);
    const std::uint64_t begin = t.t0() + static_cast<std::uint64_t>(i) * width;
    const std::uint64_t span = std::min(width, t.end() - begin);  // the last bin ends at t2
    const std::uint64_t busy = std::min(span, b.mpi + b.io);
    compute.push_back(rounded(static_cast<double>(span - busy) * spt));
    mpi.push_back(rounded(static_cast<double>(b.mpi) * spt));
    io.push_back(rounded(static_cast<double>(b.io) * spt));
    const std::uint16_t id = t.top_call(i);
    if (id == kNoCall) {
      top.push_back(-1);
      continue;
    }
    auto [it, added] = call_index.emplace(id, static_cast<int>(calls.size()));
    if (added) calls.push_back(kCalls[id].name);
    top.push_back(it->second);
  }
  nlohmann::json marks = nlohmann::json::array();
  for (int i = 0; i < t.marks(); ++i) {
    const TimelineMark& m = t.mark_at(i);
    const double at = m.tick > t.t0() ? static_cast<double>(m.tick - t.t0()) * spt : 0.0;
    marks.push_back({{"t_s", rounded(at)}, {"phase", region_name(m.region)}});
  }
  nlohmann::json j = {{"bin_s", static_cast<double>(width) * spt}, {"bins", n}, {"compute_s", compute}, {"mpi_s", mpi},
                      {"io_s", io}, {"calls", calls}, {"top_mpi", top}, {"marks", marks},
                      {"marks_dropped", t.marks_dropped()}, {"thread", "MPI_Init thread"}};
  if (auto rss = rss_timeline(n, static_cast<double>(width) * spt); !rss.empty()) j["rss_kib"] = rss;
  return j;
}

}  // namespace hpcsens::preload
