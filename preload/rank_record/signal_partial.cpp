#include "preload/rank_record/signal_partial.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include <nlohmann/json.hpp>

#include "common/safe_file.h"
#include "preload/account/accounting.h"
#include "preload/account/memory_use.h"
#include "preload/rank_record/rank_report.h"
#include "preload/account/timeline.h"
#include "preload/rank_record/signal_files.h"

namespace hpcsens::preload {
namespace {

constexpr int kSignals[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGXCPU, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
constexpr int kNumSignals = static_cast<int>(sizeof kSignals / sizeof kSignals[0]);

// Everything the handler touches, prepared when armed; never freed (a signal may come at exit).
struct Armed {
  safe_file::Dir dir;
  std::string head, tmp_name, final_name;
  const TickClock* ticks = nullptr;
  double t1 = 0;
  int pid = 0;
  bool installed[kNumSignals] = {};
};
Armed* g_armed = nullptr;
std::atomic<bool> g_signal_live{false};  // armed and not yet written (or disarmed)

// The partial text is built here: 1 MiB holds every call of the table several times over.
constexpr std::size_t kBufBytes = 1u << 20;
char g_buf[kBufBytes];

void put_call(SignalText& o, bool& first, const char* name, const CallSlot& c, double spt) {
  if (o.n + 256 > kBufBytes) return;  // room for the closing text
  o.put(first ? "\"" : ",\"");
  first = false;
  o.put(name);
  o.put("\":{\"count\":");
  o.u64(c.count);
  o.put(",\"seconds\":");
  o.seconds(static_cast<double>(c.ticks) * spt);
  o.put(",\"bytes\":");
  o.u64(c.bytes);
  if (c.bytes_received != 0) o.put(",\"bytes_received\":"), o.u64(c.bytes_received);
  o.put("}");
}

struct KindSums {
  double seconds = 0;
  std::uint64_t read = 0, written = 0;
};

// The calls of one kind (MPI or I/O) as a JSON object.
KindSums put_calls(SignalText& o, const CallTotals& totals, bool io, double spt) {
  KindSums sums;
  bool first = true;
  o.put("{");
  for (int id = 0; id < kNumCalls; ++id) {
    const CallSlot& c = totals[id];
    const Category cat = kCalls[id].category;
    if (c.count == 0 || is_io(cat) != io) continue;
    put_call(o, first, kCalls[id].name, c, spt);
    sums.seconds += static_cast<double>(c.ticks) * spt;
    if (is_read(cat)) sums.read += c.bytes;
    if (is_write(cat)) sums.written += c.bytes;
  }
  o.put("}");
  return sums;
}

// ranks[].memory as the full record has it, up to the signal (values the system gave only).
void put_memory(SignalText& o, const MemoryNow& m) {
  const char* sep = "{";
  o.put(",\"memory\":");
  const auto field = [&](const char* key, std::int64_t v, std::int64_t min) {
    if (v < min) return;
    o.put(sep), o.put(key), o.u64(static_cast<std::uint64_t>(v));
    sep = ",";
  };
  field("\"peak_rss_kib\":", m.peak_rss_kib, 0);
  field("\"rss_kib\":", m.rss_kib, 0);
  field("\"node_total_kib\":", m.node_total_kib, 1);
  o.put(*sep == '{' ? "{}" : "}");
}

// The record text in g_buf: the head, then this rank's measurements up to now.
std::size_t build_text(const Armed& a, int sig) {
  const double t2 = now_s();
  const double spt = a.ticks != nullptr ? a.ticks->seconds_per_tick() : 1e-9;
  const CallTotals totals = merged_totals();
  SignalText o{g_buf, kBufBytes};
  o.put(a.head.data(), a.head.size());
  o.put("\"t2\":"), o.seconds(t2), o.put(",\"t3\":"), o.seconds(t2);
  o.put(",\"killed_by_signal\":"), o.u64(static_cast<std::uint64_t>(sig));
  o.put(",\"mpi_calls\":");
  const KindSums mpi = put_calls(o, totals, false, spt);
  o.put(",\"io_calls\":");
  const KindSums io = put_calls(o, totals, true, spt);
  const double wall = t2 - a.t1;
  const double compute = wall - mpi.seconds - io.seconds;
  o.put(",\"wall_s\":"), o.seconds(wall), o.put(",\"mpi_s\":"), o.seconds(mpi.seconds);
  o.put(",\"io_s\":"), o.seconds(io.seconds), o.put(",\"compute_s\":"), o.seconds(compute);
  o.put(",\"io_bytes_read\":"), o.u64(io.read), o.put(",\"io_bytes_written\":"), o.u64(io.written);
  put_signal_files(o, spt, g_timeline.t0());  // as the full record: times from the timeline start
  put_memory(o, read_memory_now());
  o.put("}]}\n");
  return o.n;
}

// Create, write, rename under a name that did not exist: each step async-signal-safe.
void write_from_handler(const Armed& a, int sig) {
  const std::size_t n = build_text(a, sig);
  const int fd = ::openat(a.dir.fd(), a.tmp_name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return;
  std::size_t done = 0;
  while (done < n) {
    const ssize_t w = ::write(fd, g_buf + done, n - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break;
    done += static_cast<std::size_t>(w);
  }
  ::close(fd);
  if (done == n &&
      ::syscall(SYS_renameat2, a.dir.fd(), a.tmp_name.c_str(), a.dir.fd(), a.final_name.c_str(), RENAME_NOREPLACE) == 0)
    return;
  if (done == n && ::linkat(a.dir.fd(), a.tmp_name.c_str(), a.dir.fd(), a.final_name.c_str(), 0) != 0) done = 0;
  ::unlinkat(a.dir.fd(), a.tmp_name.c_str(), 0);
}

void on_signal(int sig) {
  const int saved = errno;
  bool live = true;
  if (g_armed != nullptr && ::getpid() == g_armed->pid && g_signal_live.compare_exchange_strong(live, false))
    write_from_handler(*g_armed, sig);
  errno = saved;
  // SA_RESETHAND put the default action back: the signal, raised again, ends the process as it
  // would have without us (a fault re-executes the instruction and faults again).
  ::raise(sig);
}

std::string random_hex16() {
  unsigned char b[8] = {};
  if (::getrandom(b, sizeof b, 0) != static_cast<ssize_t>(sizeof b)) return "";
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (unsigned char c : b) out += kHex[c >> 4], out += kHex[c & 15];
  return out;
}

}  // namespace

std::string signal_partial_head(const std::string& job_json, int rank, const std::string& host_json, int pid,
                                double t0, double t1) {
  nlohmann::json t0j = t0, t1j = t1;
  return "{\"schema\":\"hpcsens.run.v1\",\"schema_minor\":2,\"complete\":false,\"job\":" + job_json +
         ",\"config\":{},\"timing\":{\"job_s\":0,\"method\":\"unavailable: killed by a signal\"},"
         "\"ranks\":[{\"rank\":" + std::to_string(rank) + ",\"host\":" + host_json + ",\"pid\":" +
         std::to_string(pid) + ",\"complete\":false,\"counters_status\":\"not read: killed by a signal\","
         "\"t0\":" + t0j.dump() + ",\"t1\":" + t1j.dump() + ",";
}

std::string arm_signal_partial(SignalPartialSetup setup, double t1) {
  auto* a = new Armed;
  if (std::string err = safe_file::open_dir(setup.out_dir, true, &a->dir); !err.empty()) {
    delete a;
    return err;
  }
  const std::string hex = random_hex16();
  if (hex.empty()) {
    delete a;
    return "no random name for the partial record (getrandom failed)";
  }
  const std::string stem = setup.run_id + ".rank" + std::to_string(setup.rank);
  a->final_name = stem + "." + hex + ".partial.json";
  // The temporaries' pattern, which `hpcsens run` removes after assembling (collect_record.cpp).
  a->tmp_name = "." + stem + ".partial.json.tmp." + std::to_string(setup.pid) + ".signal";
  a->head = std::move(setup.head);
  a->ticks = setup.ticks;
  a->pid = setup.pid;
  a->t1 = t1;
  g_armed = a;
  g_signal_live.store(true);
  for (int i = 0; i < kNumSignals; ++i) {
    struct sigaction old {};
    if (::sigaction(kSignals[i], nullptr, &old) != 0 || old.sa_handler != SIG_DFL ||
        (old.sa_flags & SA_SIGINFO) != 0)
      continue;
    struct sigaction act {};
    act.sa_handler = on_signal;
    sigfillset(&act.sa_mask);  // nothing else of ours runs inside it
    act.sa_flags = SA_RESETHAND | SA_RESTART;
    a->installed[i] = ::sigaction(kSignals[i], &act, nullptr) == 0;
  }
  return "";
}

void disarm_signal_partial() noexcept {
  g_signal_live.store(false);
  if (g_armed == nullptr) return;
  for (int i = 0; i < kNumSignals; ++i) {
    if (!g_armed->installed[i]) continue;
    struct sigaction cur {};
    // Only our own handler goes back to the default; one the program installed since stays.
    if (::sigaction(kSignals[i], nullptr, &cur) == 0 && cur.sa_handler == on_signal) {
      struct sigaction def {};
      def.sa_handler = SIG_DFL;
      ::sigaction(kSignals[i], &def, nullptr);
    }
    g_armed->installed[i] = false;
  }
}

}  // namespace hpcsens::preload
