#include "report/measure_csv.h"

#include <cstdint>

#include "report/record_output.h"

namespace hpcsens::report {
namespace {

using nlohmann::json;

template <class F>
void each_rank_json(const RunScan& s, F&& f) {
  for (const auto& row : s.rows) {
    const json r = s.rank_json(row);
    f(row.rank, r);
  }
}

std::string value_of(const json& j, const char* key) {
  return j.contains(key) && j.at(key).is_number() ? j.at(key).dump() : "";
}

}  // namespace

std::string partners_csv(const RunScan& s) {
  std::string out = csv_line({"rank", "partner", "bytes", "messages"});
  each_rank_json(s, [&](int rank, const json& r) {
    for (const auto& p : r.value("partners", json::array()))
      out += csv_line({std::to_string(rank), value_of(p, "rank"), value_of(p, "bytes"), value_of(p, "messages")});
    if (r.contains("partners_other") && r.at("partners_other").value("bytes", 0) > 0) {
      const json& o = r.at("partners_other");
      out += csv_line({std::to_string(rank), "", value_of(o, "bytes"), value_of(o, "messages")});
    }
  });
  return out;
}

std::string msg_sizes_csv(const RunScan& s) {
  std::string out = csv_line({"rank", "call", "bucket", "size_min_bytes", "size_max_bytes", "messages"});
  each_rank_json(s, [&](int rank, const json& r) {
    const json sizes = r.value("msg_sizes", json::object());  // items() must not outlive it
    for (const auto& [call, buckets] : sizes.items()) {
      for (std::size_t i = 0; i < buckets.size(); ++i) {
        if (!buckets[i].is_number() || buckets[i].get<double>() == 0) continue;
        // Bucket 0: empty messages; i >= 1: [2^(i-1), 2^i) bytes (the last takes anything larger).
        const std::string lo = i == 0 ? "0" : std::to_string(std::uint64_t{1} << (i - 1));
        const std::string hi = i == 0 ? "0" : std::to_string((std::uint64_t{1} << i) - 1);
        out += csv_line({std::to_string(rank), call, std::to_string(i), lo, hi, buckets[i].dump()});
      }
    }
  });
  return out;
}

std::string regions_csv(const RunScan& s) {
  std::string out = csv_line({"rank", "region", "count", "wall_s", "mpi_s", "io_s"});
  each_rank_json(s, [&](int rank, const json& r) {
    const json regions = r.value("regions", json::object());
    for (const auto& [name, reg] : regions.items())
      out += csv_line({std::to_string(rank), name, value_of(reg, "count"), value_of(reg, "wall_s"),
                       value_of(reg, "mpi_s"), value_of(reg, "io_s")});
  });
  return out;
}

}  // namespace hpcsens::report
