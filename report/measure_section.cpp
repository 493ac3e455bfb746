#include "report/measure_section.h"

#include <simdjson.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <queue>
#include <string>
#include <vector>

#include "common/errors.h"

namespace hpcsens::report {
namespace {

// Named apart from record_reader.cpp's DOM types: a unity build compiles both in one unit.
using OdObject = simdjson::ondemand::object;
using OdValue = simdjson::ondemand::value;

struct IoClass {
  std::uint64_t calls = 0, bytes = 0;
  double seconds = 0;
};
struct Region {
  std::uint64_t count = 0, ranks = 0;
  double wall = 0, wall_max = 0, mpi = 0, io = 0;
};
struct Pair {
  std::int64_t from = 0, to = 0;
  std::uint64_t bytes = 0, messages = 0;
  bool operator>(const Pair& o) const { return bytes > o.bytes; }
};
constexpr std::size_t kTopPairs = 10;

struct Totals {
  std::map<std::string, IoClass> io;
  std::map<std::string, std::vector<std::uint64_t>> sizes;
  std::priority_queue<Pair, std::vector<Pair>, std::greater<Pair>> top;  // min-heap of the largest
  std::uint64_t other_bytes = 0, other_messages = 0, p2p_bytes = 0;
  std::map<std::string, Region> regions;
  std::uint64_t truncated = 0;
  bool any = false;
};

double num(OdValue v) {
  double d = 0;
  if (v.get_double().get(d) != simdjson::SUCCESS) {
    std::uint64_t u = 0;
    if (v.get_uint64().get(u) == simdjson::SUCCESS) d = static_cast<double>(u);
  }
  return d;
}
std::uint64_t unum(OdValue v) {
  std::uint64_t u = 0;
  if (v.get_uint64().get(u) != simdjson::SUCCESS) u = 0;
  return u;
}
std::int64_t inum(OdValue v) {
  std::int64_t i = -1;
  if (v.get_int64().get(i) != simdjson::SUCCESS) i = -1;
  return i;
}

void add_rank(OdObject rank, Totals& t) {
  // Keys come in any order ("partners" may precede "rank"): the rank's pairs wait here.
  std::vector<Pair> pairs;
  std::int64_t me = -1;
  for (auto field : rank) {
    std::string_view key = field.unescaped_key().value_unsafe();
    OdValue v = field.value().value_unsafe();
    if (key == "rank") {
      me = inum(v);
    } else if (key == "io") {
      t.any = true;
      for (auto cls : v.get_object().value_unsafe()) {
        IoClass& c = t.io[std::string(cls.unescaped_key().value_unsafe())];
        for (auto f : cls.value().get_object().value_unsafe()) {
          const std::string_view k = f.unescaped_key().value_unsafe();
          if (k == "calls") c.calls += unum(f.value().value_unsafe());
          if (k == "bytes") c.bytes += unum(f.value().value_unsafe());
          if (k == "seconds") c.seconds += num(f.value().value_unsafe());
        }
      }
    } else if (key == "msg_sizes") {
      t.any = true;
      for (auto call : v.get_object().value_unsafe()) {
        auto& h = t.sizes[std::string(call.unescaped_key().value_unsafe())];
        std::size_t i = 0;
        for (auto b : call.value().get_array().value_unsafe()) {
          if (h.size() <= i) h.resize(i + 1);
          h[i++] += unum(b.value_unsafe());
        }
      }
    } else if (key == "partners") {
      t.any = true;
      for (auto p : v.get_array().value_unsafe()) {
        Pair pair{-1, -1, 0, 0};
        for (auto f : p.get_object().value_unsafe()) {
          const std::string_view k = f.unescaped_key().value_unsafe();
          if (k == "rank") pair.to = inum(f.value().value_unsafe());
          if (k == "bytes") pair.bytes = unum(f.value().value_unsafe());
          if (k == "messages") pair.messages = unum(f.value().value_unsafe());
        }
        pairs.push_back(pair);
      }
    } else if (key == "partners_other") {
      for (auto f : v.get_object().value_unsafe()) {
        const std::string_view k = f.unescaped_key().value_unsafe();
        if (k == "bytes") t.other_bytes += unum(f.value().value_unsafe());
        if (k == "messages") t.other_messages += unum(f.value().value_unsafe());
      }
    } else if (key == "regions") {
      t.any = true;
      for (auto reg : v.get_object().value_unsafe()) {
        Region& r = t.regions[std::string(reg.unescaped_key().value_unsafe())];
        ++r.ranks;
        for (auto f : reg.value().get_object().value_unsafe()) {
          const std::string_view k = f.unescaped_key().value_unsafe();
          const OdValue x = f.value().value_unsafe();
          if (k == "count") r.count += unum(x);
          if (k == "wall_s") {
            const double w = num(x);
            r.wall += w;
            r.wall_max = std::max(r.wall_max, w);
          }
          if (k == "mpi_s") r.mpi += num(x);
          if (k == "io_s") r.io += num(x);
        }
      }
    } else if (key == "truncated") {
      bool b = false;
      if (v.get_bool().get(b) == simdjson::SUCCESS && b) ++t.truncated;
    }
  }
  for (Pair& pair : pairs) {
    pair.from = me;
    t.p2p_bytes += pair.bytes;
    t.top.push(pair);
    if (t.top.size() > kTopPairs) t.top.pop();
  }
}

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

std::string render_totals(Totals& t, Format format) {
  std::string out;
  if (!t.io.empty()) {
    Table io{"I/O by class (all ranks)", {"class", "calls", "time [s]", "bytes"}, {},
             {false, true, true, true}};
    for (const auto& [name, c] : t.io)
      io.rows.push_back({name, std::to_string(c.calls), fixed(c.seconds, 6), std::to_string(c.bytes)});
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
    std::vector<Pair> pairs;
    for (; !t.top.empty(); t.top.pop()) pairs.push_back(t.top.top());
    std::reverse(pairs.begin(), pairs.end());
    Table p{"Heaviest point-to-point partners (sent, top " + std::to_string(kTopPairs) + " pairs)",
            {"from rank", "to rank", "bytes", "messages"}, {}, {true, true, true, true}};
    for (const auto& e : pairs)
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

std::string render_measure_section(const std::string& record_path, Format format) {
  simdjson::padded_string text;
  if (simdjson::padded_string::load(record_path).get(text) != simdjson::SUCCESS)
    throw InputError(record_path, "cannot read the record for its measurement section");
  simdjson::ondemand::parser parser;
  simdjson::ondemand::document doc;
  Totals t;
  try {
    doc = parser.iterate(text);
    simdjson::ondemand::array ranks = doc["ranks"].get_array();
    for (auto r : ranks) add_rank(r.get_object(), t);
  } catch (const simdjson::simdjson_error& e) {
    throw InputError(record_path, std::string("ranks: ") + e.what());
  }
  if (!t.any) return "";
  // The run report ends without a blank line; CSV sections are separated by their titles.
  return (format == Format::kCsv ? "" : "\n") + render_totals(t, format);
}

}  // namespace hpcsens::report
