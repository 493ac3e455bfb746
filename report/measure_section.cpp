#include "report/measure_section.h"

#include <simdjson.h>

#include <cstdint>
#include <string>

#include "common/human_units.h"
#include "common/safe_file.h"
#include "report/measure_scan.h"

namespace hpcsens::report {
namespace {

std::string size_range(std::size_t bucket) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  auto human = [](std::uint64_t v) {
    int u = 0;
    while (v >= 1024 && v % 1024 == 0 && u < 4) {
      v /= 1024;
      ++u;
    }
    return std::to_string(v) + " " + units[u];
  };
  if (bucket == 0) return "0 B";
  return "[" + human(1ull << (bucket - 1)) + ", " + human(1ull << bucket) + ")";
}

std::string render_totals(const MeasureTotals& t, Format format) {
  std::string out;
  if (!t.io.empty()) {
    Table io{"I/O by class (all ranks)", {"class", "calls", "time [s]", "bytes"}, {},
             {false, true, true, true}};
    for (const auto& [name, c] : t.io)
      io.rows.push_back({name, std::to_string(c.calls), fixed(c.seconds, 6),
                         format == Format::kCsv ? std::to_string(c.bytes) : human::bytes(static_cast<double>(c.bytes))});
    out += render(io, format);
  }
  if (!t.sizes.empty()) {
    Table s{"Message sizes (all ranks; log2 ranges)", {"call", "messages", "sizes: messages"}, {},
            {false, true, false}};
    for (const auto& [call, h] : t.sizes) {
      std::uint64_t n = 0;
      std::string text;
      for (std::size_t i = 0; i < h.size(); ++i) {
        if (h[i] == 0) continue;
        n += h[i];
        text += (text.empty() ? "" : "; ") + size_range(i) + ": " + std::to_string(h[i]);
      }
      s.rows.push_back({call, std::to_string(n), text});
    }
    out += render(s, format);
  }
  if (!t.top.empty()) {
    Table p{"Heaviest point-to-point partners (sent, top " + std::to_string(kTopPairs) + " pairs)",
            {"from rank", "to rank", "bytes", "messages"}, {}, {true, true, true, true}};
    for (const auto& e : t.top)
      p.rows.push_back({std::to_string(e.from), std::to_string(e.to), std::to_string(e.bytes),
                        std::to_string(e.messages)});
    if (t.other_messages > 0)
      p.rows.push_back({"all", "beyond each rank's top 64", std::to_string(t.other_bytes),
                        std::to_string(t.other_messages)});
    out += render(p, format);
  }
  if (!t.regions.empty()) {
    Table r{"Regions and MPI_Pcontrol phases",
            {"region", "ranks", "count", "wall mean [s]", "wall max [s]", "MPI mean [s]",
             "I/O mean [s]"},
            {}, {false, true, true, true, true, true, true}};
    for (const auto& [name, g] : t.regions) {
      const double n = static_cast<double>(g.ranks);
      r.rows.push_back({name, std::to_string(g.ranks), std::to_string(g.count), fixed(g.wall / n, 6),
                        fixed(g.wall_max, 6), fixed(g.mpi / n, 6), fixed(g.io / n, 6)});
    }
    out += render(r, format);
  }
  if (t.truncated > 0)
    out += "Note: " + std::to_string(t.truncated) +
           " rank(s) exceeded the per-rank byte budget; their partners, histograms or regions "
           "were dropped (\"truncated\": true)\n\n";
  return out;
}

}  // namespace

std::string render_measure_section(const MeasureTotals& t, Format format) {
  if (!t.any) return "";
  // The run report ends without a blank line; CSV sections are separated by their titles.
  return (format == Format::kCsv ? "" : "\n") + render_totals(t, format);
}

std::string render_measure_section(const std::string& record_path, Format format) {
  std::string text = safe_file::read_input_file(record_path, record::kMaxRecordBytes);
  text.reserve(text.size() + simdjson::SIMDJSON_PADDING);
  return render_measure_section(measure_only(text, record_path), format);
}

}  // namespace hpcsens::report
