// Run-page sections from the per-rank fields of record schema_minor 2 (docs/record-format.md):
// point-to-point partners (a rank x rank matrix), message-size histograms, named regions and
// I/O by interface. Missing fields mean an older record: the sections are simply absent.
#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

#include "common/human_units.h"
#include "report/byte_direction.h"
#include "report/html_page.h"
#include "report/html_report.h"
#include "report/callsite_view.h"
#include "report/file_view.h"
#include "report/timeline_section.h"

namespace hpcsens::report {
namespace {

using html::json;

constexpr std::size_t kMatrixRanks = 256;  // a bubble per (sender, receiver) up to this many ranks

double number(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_number() ? j[key].get<double>() : 0.0;
}

// Beside the matrix, each rank's own volume (issue 20): point-to-point sent and received apart,
// and what it contributed to collectives, which the matrix cannot show.
json volume_table(const json& ranks) {
  json table = {{"title", "Bytes per rank: point-to-point (and RMA) sent, received; collectives contributed"},
                {"header", {"rank", "p2p sent", "p2p received", "collective bytes"}},
                {"rows", json::array()},
                {"numeric", {true, true, true, true}}};
  for (const auto& r : ranks) {
    if (!r.is_object() || !r.contains("mpi_calls") || !r["mpi_calls"].is_object()) continue;
    RankVolume v;
    for (const auto& [name, c] : r["mpi_calls"].items())
      add_call_volume(v, name, static_cast<std::uint64_t>(number(c, "bytes")),
                      static_cast<std::uint64_t>(number(c, "bytes_received")));
    table["rows"].push_back({number(r, "rank"), v.p2p_sent, v.p2p_received, v.collective});
  }
  return table;
}

json partners_section(const json& ranks) {
  json s = html::section("Point-to-point traffic between ranks");
  if (ranks.size() <= kMatrixRanks) s["tables"].push_back(volume_table(ranks));
  json points = json::array();
  double max_bytes = 0;
  double other_bytes = 0;
  for (const auto& r : ranks) {
    if (!r.contains("partners") || !r["partners"].is_array()) continue;
    for (const auto& p : r["partners"]) max_bytes = std::max(max_bytes, number(p, "bytes"));
    if (r.contains("partners_other")) other_bytes += number(r["partners_other"], "bytes");
  }
  if (max_bytes <= 0 || ranks.size() > kMatrixRanks) {
    s["text"].push_back(ranks.size() > kMatrixRanks
                            ? fmt::format("{} ranks: too many for a rank x rank picture; the partners are in the "
                                          "record (ranks[].partners).", ranks.size())
                            : "No point-to-point bytes were sent.");
    return s;
  }
  json table = {{"title", "Bytes sent, sender -> receiver"}, {"header", {"sender", "receiver", "bytes", "messages"}},
                {"rows", json::array()}, {"numeric", {true, true, true, true}}};
  for (const auto& r : ranks) {
    if (!r.contains("partners") || !r["partners"].is_array()) continue;
    for (const auto& p : r["partners"]) {
      const double b = number(p, "bytes");
      // Bubble area grows with bytes; the exact value is in the tooltip and the table.
      points.push_back({{"x", number(r, "rank")}, {"y", number(p, "rank")},
                        {"r", 2 + 12 * std::sqrt(b / max_bytes)}, {"v", b}});
      table["rows"].push_back({number(r, "rank"), number(p, "rank"), b, number(p, "messages")});
    }
  }
  json matrix = html::xy_chart("Rank x rank matrix: bytes sent (bubble area ~ bytes)", "sender rank",
                               "receiver rank", {html::series("bytes sent", points, {{"kind", "bubble"}})}, "bubble");
  matrix["rank_axes"] = ranks.size();
  s["charts"].push_back(matrix);
  if (other_bytes > 0)
    s["text"].push_back(fmt::format("{} further bytes went to partners beyond the 64 largest per rank.", other_bytes));
  s["tables"].push_back(table);
  return s;
}

// Bucket i >= 1 holds sizes in [2^(i-1), 2^i) bytes; bucket 0 holds empty messages.
std::string bucket_label(std::size_t i) {
  if (i == 0) return "0 B";
  auto size = [](double b) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (b >= 1024 && u < 4) b /= 1024, ++u;
    return fmt::format("{:g} {}", b, units[u]);
  };
  return size(std::ldexp(1.0, static_cast<int>(i) - 1)) + "-";
}

json msg_sizes_section(const json& ranks) {
  std::map<std::string, std::vector<double>> by_call;
  std::size_t buckets = 0;
  for (const auto& r : ranks) {
    if (!r.contains("msg_sizes") || !r["msg_sizes"].is_object()) continue;
    for (const auto& [call, hist] : r["msg_sizes"].items()) {
      if (!hist.is_array()) continue;
      auto& v = by_call[call];
      if (v.size() < hist.size()) v.resize(hist.size(), 0);
      for (std::size_t i = 0; i < hist.size(); ++i) v[i] += hist[i].is_number() ? hist[i].get<double>() : 0;
      buckets = std::max(buckets, hist.size());
    }
  }
  json s = html::section("Message sizes");
  if (by_call.empty()) return json();
  std::vector<std::string> labels;
  for (std::size_t i = 0; i < buckets; ++i) labels.push_back(bucket_label(i));
  std::vector<json> series;
  for (auto& [call, v] : by_call) {
    v.resize(buckets, 0);
    series.push_back(html::series(call, v));
  }
  s["charts"].push_back(html::bar_chart("Messages by size, all ranks (log2 buckets)", "message size [bytes, from]",
                                        "messages [count]", labels, series, true));
  return s;
}

json regions_section(const json& ranks) {
  struct Agg { double count = 0, wall = 0, mpi = 0, io = 0, max_wall = 0; };
  std::map<std::string, Agg> regions;
  for (const auto& r : ranks) {
    if (!r.contains("regions") || !r["regions"].is_object()) continue;
    for (const auto& [name, g] : r["regions"].items()) {
      auto& a = regions[name];
      a.count += number(g, "count"), a.wall += number(g, "wall_s"), a.mpi += number(g, "mpi_s");
      a.io += number(g, "io_s"), a.max_wall = std::max(a.max_wall, number(g, "wall_s"));
    }
  }
  if (regions.empty()) return json();
  json s = html::section("Regions (named regions and MPI_Pcontrol phases)");
  std::vector<std::string> labels;
  json other = json::array(), mpi = json::array(), io = json::array();
  json table = {{"title", "Regions, summed over ranks"},
                {"header", {"region", "entries", "wall [s]", "MPI [s]", "I/O [s]", "max wall on one rank [s]"}},
                {"rows", json::array()}, {"numeric", {false, true, true, true, true, true}}};
  for (const auto& [name, a] : regions) {
    labels.push_back(name);
    other.push_back(std::max(0.0, a.wall - a.mpi - a.io));
    mpi.push_back(a.mpi);
    io.push_back(a.io);
    table["rows"].push_back({name, a.count, a.wall, a.mpi, a.io, a.max_wall});
  }
  s["charts"].push_back(html::bar_chart("Time in regions, all ranks", "region", "time summed over ranks [s]", labels,
                                        {html::series("compute", other), html::series("MPI", mpi),
                                         html::series("I/O", io)},
                                        true));
  s["tables"].push_back(table);
  return s;
}

json io_section(const json& ranks) {
  std::map<std::string, std::array<double, 3>> classes;  // calls, seconds, bytes
  for (const auto& r : ranks) {
    if (!r.contains("io") || !r["io"].is_object()) continue;
    for (const auto& [name, c] : r["io"].items()) {
      auto& a = classes[name];
      a[0] += number(c, "calls"), a[1] += number(c, "seconds"), a[2] += number(c, "bytes");
    }
  }
  if (classes.empty()) return json();
  json s = html::section("I/O by interface");
  std::vector<std::string> labels;
  json seconds = json::array();
  json table = {{"title", "I/O by interface, all ranks"}, {"header", {"interface", "calls", "time [s]", "bytes", "bytes [B]"}},
                {"rows", json::array()}, {"numeric", {false, true, true, true, true}}};
  for (const auto& [name, a] : classes) {
    labels.push_back(name);
    seconds.push_back(a[1]);
    table["rows"].push_back({name, a[0], a[1], human::bytes(a[2]), a[2]});
  }
  s["charts"].push_back(html::bar_chart("I/O time by interface, all ranks", "interface", "time [s]", labels,
                                        {html::series("time [s]", seconds)}));
  s["tables"].push_back(table);
  return s;
}

}  // namespace

std::vector<json> run_extra_sections(const json& raw_ranks, bool /*emulated*/) {
  std::vector<json> out;
  if (!raw_ranks.is_array()) return out;
  bool any_partners = false;
  for (const auto& r : raw_ranks) any_partners = any_partners || (r.is_object() && r.contains("partners"));
  if (auto s = timeline_html_section(timelines_of(raw_ranks, "record")); !s.is_null()) out.push_back(std::move(s));
  const auto [wall, mpi] = sum_wall_and_mpi(raw_ranks);
  if (auto s = callsite_html_section(callsites_of(raw_ranks, "record"), wall, mpi); !s.is_null()) out.push_back(std::move(s));
  if (auto s = files_html_section(files_of(raw_ranks, "record")); !s.is_null()) out.push_back(std::move(s));
  if (any_partners) out.push_back(partners_section(raw_ranks));
  for (auto s : {msg_sizes_section(raw_ranks), regions_section(raw_ranks), io_section(raw_ranks)})
    if (!s.is_null()) out.push_back(std::move(s));
  return out;
}

}  // namespace hpcsens::report
