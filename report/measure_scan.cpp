#include "report/measure_scan.h"

#include <algorithm>

#include "common/errors.h"

namespace hpcsens::report {
namespace {

using simdjson::SUCCESS;

using od::each_element;
using od::each_field;

}  // namespace

bool MeasureScan::add(std::string_view key, od::value v, const std::string& file, const std::string& where) {
  void (MeasureScan::*part)(od::value) = nullptr;
  if (key == "io") part = &MeasureScan::add_io;
  else if (key == "msg_sizes") part = &MeasureScan::add_sizes;
  else if (key == "partners") part = &MeasureScan::add_partners;
  else if (key == "partners_other") part = &MeasureScan::add_other;
  else if (key == "regions") part = &MeasureScan::add_regions;
  else if (key == "cpu") part = &MeasureScan::add_cpu;
  else if (key == "memory") part = &MeasureScan::add_memory;
  else if (key != "truncated") return false;
  try {
    if (od::is_null(v)) return true;
    if (part) (this->*part)(v);
    else if (od::to_bool(v, "", key)) ++t_.truncated;
  } catch (const od::Doubt& d) {
    // Messages are worded here only: the paths below are relative, and built on failure.
    const std::string at = where + (part ? "." + std::string(key) : "") + (d.where.empty() ? "" : "." + d.where);
    throw InputError(file + ": " + at, d.what.empty() ? "is malformed" : d.what);
  }
  return true;
}

void MeasureScan::add_io(od::value v) {
  t_.any = true;
  each_field(v, "", "io", [&](std::string_view cls, od::value c) {
    IoClassTotal& total = t_.io[std::string(cls)];
    const std::string_view w = cls;
    each_field(c, w, cls, [&](std::string_view k, od::value x) {
      if (k == "calls") total.calls += od::to_u64(x, w, k);
      else if (k == "bytes") total.bytes += od::to_u64(x, w, k);
      else if (k == "seconds") total.seconds += od::to_double(x, w, k);
      else od::walk(x, w);
    });
  });
}

void MeasureScan::add_sizes(od::value v) {
  t_.any = true;
  each_field(v, "", "msg_sizes", [&](std::string_view call, od::value buckets) {
    auto& h = t_.sizes[std::string(call)];
    std::size_t i = 0;
    each_element(buckets, "", call, [&](od::value b) {
      if (h.size() <= i) h.resize(i + 1);
      h[i++] += od::to_u64(b, "", call);
    });
  });
}

void MeasureScan::add_partners(od::value v) {
  const std::string_view where = "";
  t_.any = true;
  each_element(v, where, "partners", [&](od::value p) {
    PartnerPair pair{-1, -1, 0, 0};
    each_field(p, where, "partners[]", [&](std::string_view k, od::value x) {
      if (k == "rank") pair.to = od::to_int64(x, where, k, INT64_MIN, INT64_MAX);
      else if (k == "bytes") pair.bytes = od::to_u64(x, where, k);
      else if (k == "messages") pair.messages = od::to_u64(x, where, k);
      else od::walk(x, where);
    });
    pending_.push_back(pair);
  });
}

void MeasureScan::add_other(od::value v) {
  const std::string_view where = "";
  each_field(v, where, "partners_other", [&](std::string_view k, od::value x) {
    if (k == "bytes") t_.other_bytes += od::to_u64(x, where, k);
    else if (k == "messages") t_.other_messages += od::to_u64(x, where, k);
    else od::walk(x, where);
  });
}

void MeasureScan::add_regions(od::value v) {
  t_.any = true;
  each_field(v, "", "regions", [&](std::string_view name, od::value reg) {
    RegionTotal& r = t_.regions[std::string(name)];
    ++r.ranks;
    const std::string_view w = name;
    each_field(reg, w, name, [&](std::string_view k, od::value x) {
      if (k == "count") {
        r.count += od::to_u64(x, w, k);
      } else if (k == "wall_s") {
        const double wall = od::to_double(x, w, k);
        r.wall += wall;
        r.wall_max = std::max(r.wall_max, wall);
      } else if (k == "mpi_s") {
        r.mpi += od::to_double(x, w, k);
      } else if (k == "io_s") {
        r.io += od::to_double(x, w, k);
      } else {
        od::walk(x, w);
      }
    });
  });
}

void MeasureScan::add_cpu(od::value v) {
  each_field(v, "", "cpu", [&](std::string_view k, od::value x) {
    if (k == "online") online_ = od::to_int64(x, "", k, 0, INT32_MAX);
    else if (k == "used_s") used_s_ = od::to_double(x, "", k);
    else if (k == "run_delay_s") run_delay_s_ = od::to_double(x, "", k);
    else od::walk(x, "");
  });
  if (used_s_ < 0) used_s_ = 0;  // a "cpu" object without CPU time still counts its host
}

void MeasureScan::add_memory(od::value v) {
  each_field(v, "", "memory", [&](std::string_view k, od::value x) {
    if (k == "peak_rss_kib") peak_kib_ = od::to_int64(x, "", k, 0, INT64_MAX >> 10);
    else if (k == "node_total_kib") total_kib_ = od::to_int64(x, "", k, 0, INT64_MAX >> 10);
    else od::walk(x, "");
  });
}

void MeasureScan::end_rank(std::int64_t rank, double busy_s) {
  if (used_s_ >= 0) t_.cpu.add_rank(host_, online_, used_s_, busy_s, run_delay_s_);
  t_.memory.add_rank(host_, rank, peak_kib_, total_kib_);
  peak_kib_ = total_kib_ = -1;
  host_.clear();
  online_ = 0;
  used_s_ = -1;
  run_delay_s_ = -1;
  for (PartnerPair& pair : pending_) {
    pair.from = rank;
    top_.push(pair);
    if (top_.size() > kTopPairs) top_.pop();
  }
  pending_.clear();
}

void CpuTotals::add_rank(const std::string& host, std::int64_t online, double used_s, double busy_s,
                         double run_delay_s) {
  HostCpus& h = hosts[host];
  ++h.ranks;
  h.online = std::max(h.online, online);
  ++ranks;
  if (busy_s <= 0.05) return;
  // The kernel's own count of waiting for a CPU, where the record has it: a rank that slept or
  // blocked is not starved.
  if (run_delay_s >= 0) {
    if (run_delay_s > 0.5 * busy_s) ++starved;
    return;
  }
  // Else: waiting in MPI spins on the CPU (Open MPI, MPICH by default), so a rank far below its
  // own time outside I/O was waiting for a CPU (or sleeping: older records cannot tell).
  if (used_s > 0 && used_s < 0.5 * busy_s) ++starved;
}

MeasureTotals MeasureScan::finish() {
  t_.top.clear();
  for (; !top_.empty(); top_.pop()) t_.top.push_back(top_.top());
  std::reverse(t_.top.begin(), t_.top.end());
  return std::move(t_);
}

MeasureTotals measure_only(const std::string& padded, const std::string& file) {
  simdjson::ondemand::parser parser;
  simdjson::ondemand::document doc;
  MeasureScan scan;
  try {
    if (parser.iterate(padded).get(doc) != SUCCESS) throw od::Doubt{"", "not valid JSON"};
    simdjson::ondemand::array ranks;
    if (doc["ranks"].get_array().get(ranks) != SUCCESS) throw od::Doubt{"ranks", "is not an array"};
    std::size_t i = 0;
    for (auto r : ranks) {
      const std::string where = "ranks[" + std::to_string(i++) + "]";
      std::int64_t me = -1;
      simdjson::ondemand::object o;
      if (r.get_object().get(o) != SUCCESS) throw od::Doubt{where, "is not an object"};
      for (auto f : o) {
        od::field fl;
        if (std::move(f).get(fl) != SUCCESS) throw od::Doubt{where, "not valid JSON"};
        const std::string_view k = od::key_of(fl);
        if (k == "rank") me = od::to_int64(fl.value(), where, k, INT64_MIN, INT64_MAX);
        else scan.add(k, fl.value(), file, where);
      }
      scan.end_rank(me);
    }
  } catch (const od::Doubt& d) {
    throw InputError(file + (d.where.empty() ? "" : ": " + d.where), d.what);
  }
  return scan.finish();
}

}  // namespace hpcsens::report
