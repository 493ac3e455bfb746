// Fit input as CSV: label,cpu_ghz,mem_gbs,time_s with optional rank, lat_ns, app and emulated
// columns (any order; other columns such as the sweep's run_id are ignored).
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>
#include <tuple>
#include <sstream>

#include <fmt/core.h>

#include "common/errors.h"
#include "common/safe_file.h"
#include "model/dataset.h"

namespace hpcsens::model {
namespace {

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

// The sweep's results.csv writes true/false; hand-made tables may use 1/0 or yes/no.
bool parse_flag(const std::string& t, const std::string& where) {
  if (t == "true" || t == "1" || t == "yes" || t == "TRUE" || t == "True") return true;
  if (t == "false" || t == "0" || t == "no" || t.empty() || t == "FALSE" || t == "False") return false;
  throw InputError(where, "'" + t + "' is not true or false");
}

}  // namespace

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
  const bool has_app = col.count("app"), has_emulated = col.count("emulated");
  const bool has_net = col.count("net_latency_us") && col.count("net_ns_per_byte");
  // Energy (model/energy_dataset.h): joules per run and the uncore clock set, when given.
  const std::string energy_col = col.count("energy_j") ? "energy_j" : col.count("pkg_energy_j") ? "pkg_energy_j" : "";
  const bool has_uncore = col.count("uncore_ghz");

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
    // Empty: not measured (a sweep's results.csv with STREAM off); only models without mem fit.
    o.mem_gbs = f[col["mem_gbs"]].empty()
                    ? NAN
                    : parse_measure(f[col["mem_gbs"]], where_line(path, lineno, "mem_gbs"), kMemGbsRange);
    if (has_net && !f[col["net_latency_us"]].empty() && !f[col["net_ns_per_byte"]].empty()) {
      for (auto [key, out, range] : {std::tuple{"net_latency_us", &o.net_latency_us, kNetLatencyUsRange},
                                     std::tuple{"net_ns_per_byte", &o.net_ns_per_byte, kNetNsPerByteRange}}) {
        const std::string w = where_line(path, lineno, key);
        *out = parse_number(f[col[key]], w, false);  // 0: nothing measured and nothing added
        check_plausible(**out, range, w);
      }
    }
    const double time = parse_measure(f[col["time_s"]], where_line(path, lineno, "time_s"), kTimeSRange);
    if (has_app) o.app = f[col["app"]];
    if (has_emulated) o.emulated = parse_flag(f[col["emulated"]], where_line(path, lineno, "emulated"));
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
    if (has_uncore && !f[col["uncore_ghz"]].empty())
      o.uncore_ghz = parse_measure(f[col["uncore_ghz"]], where_line(path, lineno, "uncore_ghz"), kCpuGhzRange);
    if (energy_col.empty()) {
      o.energy_reason = "the CSV has no energy_j or pkg_energy_j column";
    } else if (f[col[energy_col]].empty() || !std::isfinite(o.time_s)) {
      o.energy_reason = fmt::format("{}:{}: no {} for this run", path, lineno,
                                    std::isfinite(o.time_s) ? energy_col : "job time (per-rank rows)");
    } else {
      o.energy_j = parse_number(f[col[energy_col]], where_line(path, lineno, energy_col), true);
      o.power_w = *o.energy_j / o.time_s;
      o.energy_domains = energy_col;
      o.energy_source = "csv";
    }
    out.push_back(std::move(o));
  }
  if (out.empty()) throw InputError(path, "no data rows after the header");
  return out;
}

std::vector<Observation> read_fit_csv(const std::string& path) {
  return parse_fit_csv(safe_file::read_input_file(path, kMaxInputBytes), path);
}

}  // namespace hpcsens::model
