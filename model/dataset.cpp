#include "model/dataset.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "common/errors.h"
#include "record/run_record.h"

namespace hpcsens::model {
namespace {

namespace fs = std::filesystem;

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (char c : line) {
    if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      out.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(trim(cur));
  return out;
}

std::string where_line(const std::string& path, int line, const std::string& field) {
  return path + ":" + std::to_string(line) + ": field '" + field + "'";
}

// Plain decimal only ("12", "-3.5", "1e-3"): strtod would also take hex ("0x41"), "inf" and "nan".
bool is_decimal(const std::string& t) {
  size_t i = 0, n = t.size();
  if (i < n && (t[i] == '+' || t[i] == '-')) ++i;
  size_t digits = 0;
  while (i < n && std::isdigit(static_cast<unsigned char>(t[i]))) ++i, ++digits;
  if (i < n && t[i] == '.') {
    ++i;
    while (i < n && std::isdigit(static_cast<unsigned char>(t[i]))) ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < n && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < n && (t[i] == '+' || t[i] == '-')) ++i;
    size_t exp_digits = 0;
    while (i < n && std::isdigit(static_cast<unsigned char>(t[i]))) ++i, ++exp_digits;
    if (exp_digits == 0) return false;
  }
  return i == n;
}

// A finite decimal number; `positive` also refuses zero and negatives (times and rates).
double parse_number(const std::string& text, const std::string& where, bool positive) {
  if (text.empty()) throw InputError(where, "empty value");
  if (!is_decimal(text)) {
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size()) throw InputError(where, "'" + text + "' is not a number");
    throw InputError(where, "'" + text + (std::isfinite(v) ? "' is not a decimal number" : "' is not a finite number"));
  }
  errno = 0;
  const double v = std::strtod(text.c_str(), nullptr);
  if (!std::isfinite(v) || errno == ERANGE) throw InputError(where, "'" + text + "' is not a finite number");
  if (positive && v <= 0) throw InputError(where, "'" + text + "' must be greater than zero");
  return v;
}

// A CSV rate or time: decimal, then within its plausible range.
double parse_measure(const std::string& text, const std::string& where, PlausibleRange r) {
  const double v = parse_number(text, where, true);
  check_plausible(v, r, where);
  return v;
}

// Rates and times from a record's JSON: must be present, numeric, finite and positive.
double record_number(const nlohmann::json& obj, const char* key, const std::string& path,
                     const std::string& prefix, PlausibleRange range) {
  const std::string where = path + ": field '" + prefix + key + "'";
  if (!obj.is_object() || !obj.contains(key) || obj.at(key).is_null()) throw InputError(where, "missing");
  const auto& v = obj.at(key);
  if (!v.is_number()) throw InputError(where, "not a number");
  const double d = v.get<double>();
  if (!std::isfinite(d) || d <= 0) throw InputError(where, "must be a finite number greater than zero");
  check_plausible(d, range, where);
  return d;
}

std::string default_label(double cpu, double mem) {
  std::ostringstream s;
  s << "c" << cpu << "-m" << mem;
  return s.str();
}

}  // namespace

double median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void check_plausible(double v, PlausibleRange r, const std::string& where) {
  if (!std::isfinite(v)) throw InputError(where, "must be a finite number");
  if (v < r.lo || v > r.hi)
    throw InputError(where, fmt::format("{:g} is outside the plausible range {:g} to {:g}", v, r.lo, r.hi));
}

std::vector<Observation> parse_fit_csv(const std::string& text, const std::string& path) {
  std::istringstream in(text);
  std::string line;
  int lineno = 0;
  std::vector<std::string> header;
  while (std::getline(in, line)) {
    ++lineno;
    if (lineno == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);  // UTF-8 byte order mark
    if (!trim(line).empty() && trim(line)[0] != '#') {
      header = split_csv_line(line);
      break;
    }
  }
  if (header.empty()) throw InputError(path, "empty file: expected a header 'label,cpu_ghz,mem_gbs,time_s'");
  std::map<std::string, size_t> col;
  for (size_t i = 0; i < header.size(); ++i) col[header[i]] = i;
  for (const char* need : {"label", "cpu_ghz", "mem_gbs", "time_s"})
    if (!col.count(need))
      throw InputError(path + ":" + std::to_string(lineno) + ": header",
                       std::string("missing column '") + need + "' (expected label,cpu_ghz,mem_gbs,time_s[,rank][,lat_ns])");
  const bool has_rank = col.count("rank"), has_lat = col.count("lat_ns");

  std::vector<Observation> out;
  while (std::getline(in, line)) {
    ++lineno;
    const std::string t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    const auto f = split_csv_line(line);
    if (f.size() != header.size())
      throw InputError(path + ":" + std::to_string(lineno),
                       "expected " + std::to_string(header.size()) + " fields as in the header, found " +
                           std::to_string(f.size()));
    Observation o;
    o.label = f[col["label"]];
    if (o.label.empty()) throw InputError(where_line(path, lineno, "label"), "empty value");
    o.cpu_ghz = parse_measure(f[col["cpu_ghz"]], where_line(path, lineno, "cpu_ghz"), kCpuGhzRange);
    o.mem_gbs = parse_measure(f[col["mem_gbs"]], where_line(path, lineno, "mem_gbs"), kMemGbsRange);
    const double time = parse_measure(f[col["time_s"]], where_line(path, lineno, "time_s"), kTimeSRange);
    if (has_lat && !f[col["lat_ns"]].empty())
      o.lat_ns = parse_measure(f[col["lat_ns"]], where_line(path, lineno, "lat_ns"), kLatNsRange);
    if (has_rank) {
      const std::string w = where_line(path, lineno, "rank");
      const double r = parse_number(f[col["rank"]], w, false);
      if (r < 0 || r != std::floor(r) || r > 1e8) throw InputError(w, "'" + f[col["rank"]] + "' is not a rank number");
      o.rank_times[static_cast<int>(r)] = time;
      o.time_s = std::nan("");
    } else {
      o.time_s = time;
    }
    out.push_back(std::move(o));
  }
  if (out.empty()) throw InputError(path, "no data rows after the header");
  return out;
}

std::vector<Observation> read_fit_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, std::string("cannot read: ") + std::strerror(errno));
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_fit_csv(ss.str(), path);
}

Observation read_run_record_observation(const std::string& path) {
  const record::RunRecord r = record::load_run_record(path);
  Observation o;
  o.cpu_ghz = record_number(r.config, "cpu_ghz", path, "config.", kCpuGhzRange);
  o.mem_gbs = record_number(r.config, "mem_gbs", path, "config.", kMemGbsRange);
  if (r.config.contains("lat_ns") && !r.config.at("lat_ns").is_null())
    o.lat_ns = record_number(r.config, "lat_ns", path, "config.", kLatNsRange);
  if (r.config.contains("label") && r.config.at("label").is_string())
    o.label = r.config.at("label").get<std::string>();
  if (o.label.empty()) o.label = default_label(o.cpu_ghz, o.mem_gbs);
  if (!std::isfinite(r.timing.job_s) || r.timing.job_s <= 0)
    throw InputError(path + ": field 'timing.job_s'", "must be a finite number greater than zero");
  check_plausible(r.timing.job_s, kTimeSRange, path + ": field 'timing.job_s'");
  o.time_s = r.timing.job_s;
  for (size_t i = 0; i < r.ranks.size(); ++i) {
    const auto& rk = r.ranks[i];
    if (!std::isfinite(rk.wall_s) || rk.wall_s <= 0)
      throw InputError(path + ": field 'ranks[" + std::to_string(i) + "].wall_s'",
                       "must be a finite number greater than zero");
    check_plausible(rk.wall_s, kTimeSRange, path + ": field 'ranks[" + std::to_string(i) + "].wall_s'");
    o.rank_times[rk.rank] = rk.wall_s;
  }
  o.emulated = r.emulated;
  return o;
}

Dataset assemble(const std::vector<Observation>& obs) {
  using Key = std::tuple<std::string, double, double>;
  struct Acc {
    std::vector<double> times, lats;
    int lat_missing = 0;
    std::map<int, std::vector<double>> ranks;
  };
  std::map<Key, Acc> acc;
  std::vector<Key> order;
  Dataset d;
  for (const auto& o : obs) {
    Key k{o.label, o.cpu_ghz, o.mem_gbs};
    if (!acc.count(k)) order.push_back(k);
    Acc& a = acc[k];
    if (std::isfinite(o.time_s)) a.times.push_back(o.time_s);
    if (o.lat_ns) a.lats.push_back(*o.lat_ns); else ++a.lat_missing;
    for (const auto& [r, t] : o.rank_times) a.ranks[r].push_back(t);
    d.emulated = d.emulated || o.emulated;
  }
  std::map<int, std::vector<double>> per_rank;  // rank -> per point
  for (size_t j = 0; j < order.size(); ++j) {
    const Acc& a = acc[order[j]];
    Point p;
    std::tie(p.label, p.cpu_ghz, p.mem_gbs) = order[j];
    if (!a.lats.empty() && a.lat_missing == 0) p.lat_ns = median(a.lats);
    std::vector<double> rank_medians;
    for (const auto& [r, ts] : a.ranks) {
      const double m = median(ts);
      auto& row = per_rank[r];
      row.resize(order.size(), std::nan(""));
      row[j] = m;
      rank_medians.push_back(m);
    }
    if (!a.times.empty()) {
      p.time_s = median(a.times);
      p.min_s = *std::min_element(a.times.begin(), a.times.end());
      p.max_s = *std::max_element(a.times.begin(), a.times.end());
      p.reps = static_cast<int>(a.times.size());
    } else {
      // Only per-rank rows: the job lasts as long as its slowest rank.
      p.time_s = *std::max_element(rank_medians.begin(), rank_medians.end());
      p.min_s = p.max_s = p.time_s;
      size_t reps = 0;
      for (const auto& [r, ts] : a.ranks) reps = std::max(reps, ts.size());
      p.reps = static_cast<int>(reps);
    }
    d.points.push_back(p);
  }
  for (auto& [r, row] : per_rank) {
    row.resize(order.size(), std::nan(""));
    d.ranks.push_back(r);
    d.rank_times.push_back(row);
  }
  return d;
}

Dataset load_dataset(const std::vector<std::string>& inputs) {
  std::vector<Observation> obs;
  std::vector<std::string> sources, notes;
  auto add_file = [&](const fs::path& p, bool from_dir) {
    const std::string s = p.string();
    if (p.extension() == ".csv") {
      auto rows = read_fit_csv(s);
      obs.insert(obs.end(), rows.begin(), rows.end());
      sources.push_back(s);
      return;
    }
    if (from_dir) {
      // Directories may also hold model files or other JSON: only run records are data.
      std::ifstream in(s);
      nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
      if (j.is_discarded() || !j.is_object() || j.value("schema", std::string()) != record::kRunSchema) {
        notes.push_back("skipped " + s + " (not a " + record::kRunSchema + " run record)");
        return;
      }
    }
    obs.push_back(read_run_record_observation(s));
    sources.push_back(s);
  };
  for (const auto& in : inputs) {
    std::error_code ec;
    const fs::path p(in);
    if (fs::is_directory(p, ec)) {
      std::vector<fs::path> files;
      for (auto it = fs::recursive_directory_iterator(p, ec); !ec && it != fs::recursive_directory_iterator();
           it.increment(ec))
        if (it->is_regular_file() && it->path().extension() == ".json") files.push_back(it->path());
      if (ec) throw InputError(in, "cannot list directory: " + ec.message());
      std::sort(files.begin(), files.end());  // deterministic order
      for (const auto& f : files) add_file(f, true);
    } else if (fs::exists(p, ec)) {
      add_file(p, false);
    } else {
      throw InputError(in, "cannot read: no such file or directory");
    }
  }
  if (obs.empty()) throw InputError(inputs.empty() ? "fit" : inputs.front(), "no run records or CSV rows found");
  Dataset d = assemble(obs);
  d.sources = sources;
  d.notes = notes;
  return d;
}

}  // namespace hpcsens::model
