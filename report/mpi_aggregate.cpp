#include "report/mpi_aggregate.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "common/human_units.h"
#include "report/byte_direction.h"

namespace hpcsens::report {
namespace {

bool listed(std::string_view name, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Shortest text that reads back as the same double (tidy CSV).
std::string agg_num(double v) { return std::isfinite(v) ? fmt::format("{}", v) : std::string(); }

double pct(double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0.0; }

}  // namespace

MpiClass mpi_class_of(std::string_view name) {
  if (name.starts_with("PMPI_")) name.remove_prefix(1);
  if (is_collective_call(name)) return MpiClass::kCollective;
  if (name.ends_with("_c")) name.remove_suffix(2);  // MPI-4 large-count forms
  if (is_collective_call(name)) return MpiClass::kCollective;
  if (!name.starts_with("MPI_")) return MpiClass::kOther;
  name.remove_prefix(4);
  if (listed(name, {"Wait", "Waitall", "Waitany", "Waitsome", "Test", "Testall", "Testany", "Testsome",
                    "Test_cancelled", "Probe", "Iprobe", "Mprobe", "Improbe", "Cancel", "Request_free",
                    "Request_get_status", "Grequest_start", "Grequest_complete"}))
    return MpiClass::kCompletion;
  if (listed(name, {"Send", "Bsend", "Ssend", "Rsend", "Isend", "Ibsend", "Issend", "Irsend", "Send_init",
                    "Bsend_init", "Ssend_init", "Rsend_init", "Recv", "Irecv", "Recv_init", "Mrecv", "Imrecv",
                    "Sendrecv", "Sendrecv_replace", "Isendrecv", "Isendrecv_replace", "Start", "Startall",
                    "Psend_init", "Precv_init", "Pready", "Pready_list", "Pready_range", "Parrived"}))
    return MpiClass::kPointToPoint;
  if (listed(name, {"Put", "Get", "Accumulate", "Get_accumulate", "Fetch_and_op", "Compare_and_swap", "Rput",
                    "Rget", "Raccumulate", "Rget_accumulate", "Win_complete", "Win_fence", "Win_flush",
                    "Win_flush_all", "Win_flush_local", "Win_flush_local_all", "Win_lock", "Win_lock_all",
                    "Win_post", "Win_start", "Win_sync", "Win_test", "Win_unlock", "Win_unlock_all", "Win_wait"}))
    return MpiClass::kOneSided;
  return MpiClass::kOther;
}

std::string mpi_class_name(MpiClass c) {
  switch (c) {
    case MpiClass::kCollective: return "collective";
    case MpiClass::kPointToPoint: return "point-to-point";
    case MpiClass::kCompletion: return "completion";
    case MpiClass::kOneSided: return "one-sided";
    case MpiClass::kOther: break;
  }
  return "other";
}

double rate_mbs(std::uint64_t bytes, double seconds) {
  return seconds > 0 ? static_cast<double>(bytes) / seconds / 1e6 : 0.0;
}

MpiAggregate mpi_aggregate(const RunScan& s) {
  MpiAggregate a;
  a.ranks = s.rows.size();
  for (const auto& r : s.rows) {
    a.wall_s += r.wall_s;
    a.mpi_s += r.mpi_s;
    a.io_s += r.io_s;
    a.io_bytes += r.io_bytes_read + r.io_bytes_written;
  }
  for (const CallTotal& c : s.calls) {
    AggregateCall row{c.name, mpi_class_of(c.name), c.count, c.bytes_sent, c.bytes_received, c.seconds};
    a.calls_s += c.seconds;
    a.mpi_bytes_sent += c.bytes_sent;
    a.class_s[static_cast<std::size_t>(row.cls)] += c.seconds;
    a.calls.push_back(std::move(row));
  }
  for (auto& c : a.calls) c.app_pct = pct(c.seconds, a.wall_s), c.mpi_pct = pct(c.seconds, a.calls_s);
  std::sort(a.calls.begin(), a.calls.end(), [](const AggregateCall& x, const AggregateCall& y) {
    return x.seconds != y.seconds ? x.seconds > y.seconds : x.name < y.name;
  });
  return a;
}

namespace {

std::size_t shown(std::size_t top, std::size_t n) { return top == 0 ? n : std::min(top, n); }

std::string of_calls(std::size_t shown, std::size_t n) {
  return shown < n ? fmt::format(" ({} of {} calls; --all lists every call)", shown, n) : "";
}

}  // namespace

Table aggregate_time_table(const MpiAggregate& a, std::size_t top) {
  const std::size_t n = shown(top, a.calls.size());
  Table t{"Aggregate time: MPI time per call over all ranks" + of_calls(n, a.calls.size()) +
              "; App% of wall time summed over ranks, MPI% of MPI time",
          {"call", "class", "calls", "time [s]", "App [%]", "MPI [%]"}, {}, {false, false, true, true, true, true}};
  for (std::size_t i = 0; i < n; ++i) {
    const AggregateCall& c = a.calls[i];
    t.rows.push_back({c.name, mpi_class_name(c.cls), human::grouped(static_cast<double>(c.count)),
                      fixed(c.seconds, 6), fixed(c.app_pct, 2), fixed(c.mpi_pct, 2)});
  }
  return t;
}

Table aggregate_sent_table(const MpiAggregate& a, std::size_t top) {
  std::vector<const AggregateCall*> senders;
  for (const auto& c : a.calls)
    if (c.bytes_sent > 0) senders.push_back(&c);
  std::stable_sort(senders.begin(), senders.end(),
                   [](const auto* x, const auto* y) { return x->bytes_sent > y->bytes_sent; });
  const std::size_t n = shown(top, senders.size());
  Table t{"Aggregate sent message size: bytes each call sent or contributed, over all ranks" +
              of_calls(n, senders.size()),
          {"call", "calls", "total [B]", "average [B]", "share of bytes [%]"}, {}, {false, true, true, true, true}};
  for (std::size_t i = 0; i < n; ++i) {
    const AggregateCall& c = *senders[i];
    t.rows.push_back({c.name, human::grouped(static_cast<double>(c.count)),
                      human::grouped(static_cast<double>(c.bytes_sent)),
                      human::grouped(static_cast<double>(c.bytes_sent) / static_cast<double>(c.count), 1),
                      fixed(pct(static_cast<double>(c.bytes_sent), static_cast<double>(a.mpi_bytes_sent)), 2)});
  }
  return t;
}

Table mpi_class_table(const MpiAggregate& a) {
  Table t{"MPI time by class of call (completion: waits, tests and probes, which finish calls of any class)",
          {"class", "time [s]", "App [%]", "MPI [%]"}, {}, {false, true, true, true}};
  for (std::size_t k = 0; k < kMpiClasses; ++k) {
    if (a.class_s[k] == 0) continue;
    t.rows.push_back({mpi_class_name(static_cast<MpiClass>(k)), fixed(a.class_s[k], 6),
                      fixed(pct(a.class_s[k], a.wall_s), 2), fixed(pct(a.class_s[k], a.calls_s), 2)});
  }
  return t;
}

std::vector<std::vector<std::string>> mpi_summary_rows(const MpiAggregate& a) {
  // No time inside the calls: no rate ("-"), rather than a rate of 0 that reads as a slow one.
  const auto rate = [](std::uint64_t bytes, double s) { return s > 0 ? fixed(rate_mbs(bytes, s), 3) : "-"; };
  const auto cls = [&](MpiClass c) { return a.class_s[static_cast<std::size_t>(c)]; };
  return {
      {"MPI time, all ranks", fixed(a.mpi_s, 6), "s"},
      {"MPI share of wall time (summed over ranks)", fixed(pct(a.mpi_s, a.wall_s), 2), "%"},
      {"MPI time: collective / point-to-point",
       fixed(cls(MpiClass::kCollective), 6) + " / " + fixed(cls(MpiClass::kPointToPoint), 6), "s"},
      {"MPI rate: bytes sent per second inside MPI calls", rate(a.mpi_bytes_sent, a.calls_s),
       "MB/s (10^6 B)"},
      {"I/O rate: bytes read + written per second inside I/O calls", rate(a.io_bytes, a.io_s),
       "MB/s (10^6 B)"},
  };
}

std::vector<std::pair<std::string, std::string>> mpi_summary_csv_rows(const MpiAggregate& a) {
  return {{"mpi_s", agg_num(a.mpi_s)},
          {"mpi_pct_of_wall", agg_num(pct(a.mpi_s, a.wall_s))},
          {"mpi_collective_s", agg_num(a.class_s[static_cast<std::size_t>(MpiClass::kCollective)])},
          {"mpi_p2p_s", agg_num(a.class_s[static_cast<std::size_t>(MpiClass::kPointToPoint)])},
          {"mpi_rate_mbs", agg_num(rate_mbs(a.mpi_bytes_sent, a.calls_s))},
          {"io_rate_mbs", agg_num(rate_mbs(a.io_bytes, a.io_s))}};
}

std::string aggregate_text(const RunScan& s, Format format, bool all) {
  if (s.calls.empty()) return "";
  const MpiAggregate a = mpi_aggregate(s);
  std::string out = render(aggregate_time_table(a, all ? 0 : 20), format);
  if (const Table sent = aggregate_sent_table(a, all ? 0 : 20); !sent.rows.empty()) out += render(sent, format);
  return out + render(mpi_class_table(a), format);
}

std::string aggregate_csv(const RunScan& s) {
  const MpiAggregate a = mpi_aggregate(s);
  std::string out = "call,class,count,seconds,app_pct,mpi_pct,bytes_sent,bytes_received,avg_bytes_sent\n";
  for (const auto& c : a.calls)
    out += fmt::format("{},{},{},{},{},{},{},{},{}\n", csv_cell(c.name), mpi_class_name(c.cls), c.count,
                       agg_num(c.seconds), agg_num(c.app_pct), agg_num(c.mpi_pct), c.bytes_sent, c.bytes_received,
                       agg_num(c.count ? static_cast<double>(c.bytes_sent) / static_cast<double>(c.count) : 0.0));
  return out;
}

nlohmann::json aggregate_json(const MpiAggregate& a) {
  nlohmann::json j = {{"wall_s", a.wall_s}, {"mpi_s", a.mpi_s}, {"calls_s", a.calls_s},
                      {"mpi_pct_of_wall", pct(a.mpi_s, a.wall_s)}, {"mpi_bytes_sent", a.mpi_bytes_sent},
                      {"mpi_rate_mbs", rate_mbs(a.mpi_bytes_sent, a.calls_s)}, {"io_s", a.io_s},
                      {"io_bytes", a.io_bytes}, {"io_rate_mbs", rate_mbs(a.io_bytes, a.io_s)}};
  for (std::size_t k = 0; k < kMpiClasses; ++k)
    j["classes"][mpi_class_name(static_cast<MpiClass>(k))] = {
        {"seconds", a.class_s[k]}, {"app_pct", pct(a.class_s[k], a.wall_s)}, {"mpi_pct", pct(a.class_s[k], a.calls_s)}};
  j["calls"] = nlohmann::json::array();
  for (const auto& c : a.calls)
    j["calls"].push_back({{"call", c.name}, {"class", mpi_class_name(c.cls)}, {"count", c.count},
                          {"seconds", c.seconds}, {"app_pct", c.app_pct}, {"mpi_pct", c.mpi_pct},
                          {"bytes_sent", c.bytes_sent}, {"bytes_received", c.bytes_received}});
  return j;
}

}  // namespace hpcsens::report
