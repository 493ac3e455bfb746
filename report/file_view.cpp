#include "report/file_view.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <map>

#include "common/errors.h"
#include "common/human_units.h"
#include "common/text_escape.h"
#include "report/html_page.h"
#include "report/json_access.h"

namespace hpcsens::report {
namespace {

using nlohmann::json;

using json_access::whole;

double need_seconds(const json& f, const char* key, const std::string& where) {
  const auto it = f.find(key);
  if (it == f.end() || !it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < 0)
    throw InputError(where + "." + key, "expected seconds >= 0");
  return it->get<double>();
}

std::string need_text(const json& f, const char* key, const std::string& where) {
  const auto it = f.find(key);
  if (it == f.end() || !it->is_string()) throw InputError(where + "." + key, "expected a string");
  return it->get<std::string>();
}

std::array<std::uint64_t, kFileSizeBuckets> need_sizes(const json& f, const char* key, const std::string& where) {
  const auto it = f.find(key);
  if (it == f.end() || !it->is_array() || it->size() != kFileSizeBuckets)
    throw InputError(where + "." + key, fmt::format("expected an array of {} counts", kFileSizeBuckets));
  std::array<std::uint64_t, kFileSizeBuckets> out{};
  for (std::size_t b = 0; b < kFileSizeBuckets; ++b) {
    if (!json_access::is_whole((*it)[b]))
      throw InputError(fmt::format("{}.{}[{}]", where, key, b), "expected a whole number >= 0");
    out[b] = (*it)[b].get<std::uint64_t>();
  }
  return out;
}

RankFile one_file(int rank, const json& f, const std::string& where) {
  if (!f.is_object()) throw InputError(where, "expected an object");
  RankFile r;
  r.rank = rank;
  r.path = need_text(f, "path", where);
  r.api = need_text(f, "interface", where);
  if (r.api != "posix" && r.api != "stdio" && r.api != "mpiio")
    throw InputError(where + ".interface", "expected posix, stdio or mpiio");
  FileCounts& c = r.counts;
  c.opens = whole(f, "opens", where), c.reads = whole(f, "reads", where);
  c.writes = whole(f, "writes", where), c.meta_ops = whole(f, "meta_ops", where);
  c.bytes_read = whole(f, "bytes_read", where), c.bytes_written = whole(f, "bytes_written", where);
  c.consecutive = whole(f, "consecutive", where), c.sequential = whole(f, "sequential", where);
  c.random = whole(f, "random", where);
  c.read_s = need_seconds(f, "read_s", where), c.write_s = need_seconds(f, "write_s", where);
  c.meta_s = need_seconds(f, "meta_s", where);
  if (f.contains("syncs")) c.syncs = whole(f, "syncs", where);  // absent before sync_s was recorded
  if (f.contains("sync_s")) c.sync_s = need_seconds(f, "sync_s", where);
  c.read_sizes = need_sizes(f, "read_sizes", where), c.write_sizes = need_sizes(f, "write_sizes", where);
  r.last_io_s = need_seconds(f, "last_io_s", where);
  if (f.contains("first_open_s")) r.first_open_s = need_seconds(f, "first_open_s", where);
  return r;
}

// A path as the terminal may show it: the record's lossless text with control characters escaped.
std::string shown(const std::string& path) { return text::escape_for_message(path); }

}  // namespace

void FileCounts::add(const FileCounts& o) {
  opens += o.opens, reads += o.reads, writes += o.writes, meta_ops += o.meta_ops, syncs += o.syncs;
  bytes_read += o.bytes_read, bytes_written += o.bytes_written;
  consecutive += o.consecutive, sequential += o.sequential, random += o.random;
  read_s += o.read_s, write_s += o.write_s, meta_s += o.meta_s, sync_s += o.sync_s;
  for (std::size_t b = 0; b < kFileSizeBuckets; ++b) read_sizes[b] += o.read_sizes[b], write_sizes[b] += o.write_sizes[b];
}

RankFiles files_of(const json& raw_ranks, const std::string& file) {
  RankFiles out;
  if (!raw_ranks.is_array()) return out;
  for (const auto& r : raw_ranks) {
    if (!r.is_object() || !r.contains("files")) continue;
    const int rank = r.contains("rank") && r["rank"].is_number_integer() ? r["rank"].get<int>() : -1;
    const std::string where = fmt::format("{}: ranks[rank {}]", file, rank);
    if (!r["files"].is_array()) throw InputError(where + ".files", "expected an array");
    out.any = true;
    if (r.contains("files_dropped")) {
      const std::uint64_t d = whole(r, "files_dropped", where);
      out.dropped += d;
      out.ranks_with_drops += d > 0;
    }
    for (std::size_t i = 0; i < r["files"].size(); ++i)
      out.files.push_back(one_file(rank, r["files"][i], fmt::format("{}.files[{}]", where, i)));
  }
  return out;
}

std::vector<FileSummary> summarize_files(const std::vector<RankFile>& files) {
  std::map<std::pair<std::string, std::string>, FileSummary> by;
  std::map<std::pair<std::string, std::string>, std::map<int, double>> per_rank;
  for (const auto& f : files) {
    FileSummary& s = by[{f.path, f.api}];
    s.path = f.path, s.api = f.api;
    s.counts.add(f.counts);
    per_rank[{f.path, f.api}][f.rank] += f.counts.seconds();
  }
  std::vector<FileSummary> out;
  for (auto& [key, s] : by) {
    for (const auto& [rank, sec] : per_rank[key]) {
      s.ranks.push_back(rank);
      if (s.slowest_rank < 0 || sec > s.slowest_s) s.slowest_s = sec, s.slowest_rank = rank;
    }
    out.push_back(std::move(s));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.counts.seconds() > b.counts.seconds(); });
  return out;
}

namespace {

void drop_columns(Table& t, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    const auto at = std::find(t.header.begin(), t.header.end(), name);
    if (at == t.header.end()) continue;
    const auto i = static_cast<std::size_t>(at - t.header.begin());
    t.header.erase(at);
    t.numeric.erase(t.numeric.begin() + static_cast<std::ptrdiff_t>(i));
    for (auto& row : t.rows) row.erase(row.begin() + static_cast<std::ptrdiff_t>(i));
  }
}

// Mean bytes per write call ("-" without writes): small writes show here.
std::string mean_write(const FileCounts& c) {
  return c.writes == 0 ? "-" : human::bytes(static_cast<double>(c.bytes_written) / static_cast<double>(c.writes));
}

}  // namespace

Table file_table(const std::vector<FileSummary>& files, std::size_t top, std::uint64_t dropped, bool compact) {
  Table t;
  if (files.empty() && dropped == 0) return t;
  t.title = fmt::format("Files by I/O time (top {} of {}; one row per file and interface called)",
                        std::min(top, files.size()), files.size());
  // The terminal's 120 columns hold the time split, the bytes and the size per write; the page
  // and Markdown add the slowest rank, the call counts and the access order (CSV: files_csv).
  t.header = {"file", "interface", "ranks", "time [s]", "read [s]", "write [s]", "sync [s]", "meta [s]"};
  if (!compact) t.header.insert(t.header.end(), {"slowest [s]", "on rank"});
  t.header.insert(t.header.end(), {"read", "written"});
  if (!compact) t.header.insert(t.header.end(), {"reads", "writes"});
  t.header.push_back("per write");
  if (!compact) t.header.push_back("in order [%]");
  t.numeric.assign(t.header.size(), true);
  t.numeric[0] = t.numeric[1] = false;
  const int digits = compact ? 4 : 6;
  for (std::size_t i = 0; i < files.size() && i < top; ++i) {
    const FileSummary& f = files[i];
    const FileCounts& c = f.counts;
    const std::uint64_t accesses = c.consecutive + c.sequential + c.random;
    const std::string ordered =
        accesses == 0 ? "-" : fixed(100.0 * static_cast<double>(c.consecutive + c.sequential) / static_cast<double>(accesses), 0);
    const std::string ranks = f.shared() ? fmt::format("{} shared", f.ranks.size()) : fmt::format("rank {}", f.ranks.front());
    std::vector<std::string> row = {shown(f.path), f.api, ranks, fixed(c.seconds(), digits), fixed(c.read_s, digits),
                                    fixed(c.write_s, digits), fixed(c.sync_s, digits), fixed(c.meta_s, digits)};
    if (!compact) row.insert(row.end(), {fixed(f.slowest_s, 6), std::to_string(f.slowest_rank)});
    row.insert(row.end(), {human::bytes(static_cast<double>(c.bytes_read)), human::bytes(static_cast<double>(c.bytes_written))});
    if (!compact) row.insert(row.end(), {std::to_string(c.reads), std::to_string(c.writes)});
    row.push_back(mean_write(c));
    if (!compact) row.push_back(ordered);
    t.rows.push_back(std::move(row));
  }
  // A job that only writes (or only reads) gets no empty read (write) columns: the page fits.
  bool reads = false, writes = false;
  for (std::size_t i = 0; i < files.size() && i < top; ++i) {
    reads = reads || files[i].counts.reads > 0 || files[i].counts.read_s > 0;
    writes = writes || files[i].counts.writes > 0 || files[i].counts.write_s > 0;
  }
  if (!reads) drop_columns(t, {"read [s]", "read", "reads"});
  if (!writes) drop_columns(t, {"write [s]", "written", "writes", "per write"});
  return t;
}

std::string files_text(const RankFiles& files, Format format) {
  if (!files.any) return "";
  Table t = file_table(summarize_files(files.files), 20, files.dropped, format == Format::kTable);
  if (t.title.empty()) return "";
  std::string out = render(t, format);
  if (files.dropped > 0)
    out += fmt::format("{} file(s) on {} rank(s) did not fit the per-file table; their I/O is in the per-call "
                       "totals only.\n\n",
                       files.dropped, files.ranks_with_drops);
  return out;
}

std::string files_csv(const RankFiles& files) {
  std::string out =
      "rank,path,interface,opens,reads,writes,meta_ops,syncs,bytes_read,bytes_written,read_s,write_s,meta_s,sync_s,"
      "consecutive,sequential,random,first_open_s,last_io_s";
  for (const char* dir : {"read", "write"})
    for (std::size_t b = 0; b < kFileSizeBuckets; ++b) out += fmt::format(",{}_size_{}", dir, b);
  out += "\n";
  for (const auto& f : files.files) {
    const FileCounts& c = f.counts;
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}", f.rank, csv_cell(f.path), f.api,
                       c.opens, c.reads, c.writes, c.meta_ops, c.syncs, c.bytes_read, c.bytes_written, c.read_s, c.write_s,
                       c.meta_s, c.sync_s, c.consecutive, c.sequential, c.random, f.first_open_s < 0 ? "" : fmt::format("{}", f.first_open_s),
                       f.last_io_s);
    for (const auto* sizes : {&c.read_sizes, &c.write_sizes})
      for (const std::uint64_t n : *sizes) out += fmt::format(",{}", n);
    out += "\n";
  }
  return out;
}

json files_html_section(const RankFiles& files) {
  if (!files.any) return json();
  const auto sums = summarize_files(files.files);
  json s = html::section("Files by I/O time");
  s["text"].push_back("Per file and interface called (POSIX, stdio, MPI-IO: an fsync of a stdio file counts "
                      "under posix, as in 'I/O by class'), summed over the ranks that touched it; 'shared' files were "
                      "used by more than one rank. Sync: fsync, fdatasync, fflush, MPI_File_sync; meta: opens, "
                      "closes, seeks. In order: the share of reads and writes that start at or "
                      "after the end of the previous one (consecutive or sequential, docs/methodology.md).");
  if (files.dropped > 0)
    s["text"].push_back(fmt::format("{} file(s) on {} rank(s) did not fit the per-file table; their I/O is in the "
                                    "per-call totals only.", files.dropped, files.ranks_with_drops));
  s["tables"].push_back(html::table_json(file_table(sums, 100, files.dropped)));
  return s;
}

}  // namespace hpcsens::report
