#include "preload/account/rss_sampler.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <ctime>

#include "preload/account/clock.h"

namespace hpcsens::preload {

void RssBins::start(int shift) noexcept {
  std::fill(std::begin(kib_), std::end(kib_), -1);
  shift_ = shift;
  used_ = 0;
}

void RssBins::add(std::uint64_t ns, std::int64_t kib) noexcept {
  while ((ns >> shift_) >= static_cast<std::uint64_t>(kRssBins)) {
    for (int i = 0; i < kRssBins / 2; ++i) kib_[i] = std::max(kib_[2 * i], kib_[2 * i + 1]);
    std::fill(kib_ + kRssBins / 2, kib_ + kRssBins, -1);
    ++shift_;
    used_ = (used_ + 1) / 2;
  }
  const int b = static_cast<int>(ns >> shift_);
  kib_[b] = std::max(kib_[b], kib);
  used_ = std::max(used_, b + 1);
}

std::vector<std::int64_t> fold_rss(const RssBins& s, int bins, double bin_s) {
  std::vector<std::int64_t> out(static_cast<std::size_t>(std::max(bins, 0)), -1);
  const double width = static_cast<double>(std::uint64_t{1} << s.shift()) * 1e-9;
  std::int64_t first = -1;
  for (int j = 0; j < s.used(); ++j) {
    if (s.bin(j) < 0) continue;
    if (first < 0) first = s.bin(j);
    const auto i = static_cast<std::size_t>(std::clamp((j + 0.5) * width / bin_s, 0.0, bins - 1.0));
    if (bins > 0) out[i] = std::max(out[i], s.bin(j));
  }
  if (first < 0) return {};
  std::int64_t last = first;
  for (auto& v : out) v = v < 0 ? last : (last = v);
  return out;
}

namespace {

struct Sampler {
  RssBins bins;
  pthread_t thread{};
  pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t wake{};
  bool stop = false, running = false;
  pid_t owner = 0;
  int fd = -1;
  std::uint64_t t0 = 0;
  std::atomic<int> samples{0};
} g_rss;

std::int64_t read_rss_kib(int fd) noexcept {
  char buf[128];
  const ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return -1;
  buf[n] = '\0';
  // "size resident shared ...", in pages.
  const char* p = buf;
  while (*p && *p != ' ') ++p;
  std::int64_t pages = 0;
  for (++p; *p >= '0' && *p <= '9'; ++p) pages = pages * 10 + (*p - '0');
  return pages * (sysconf(_SC_PAGESIZE) / 1024);
}

void* sample_loop(void*) {
  pthread_mutex_lock(&g_rss.lock);
  while (!g_rss.stop) {
    pthread_mutex_unlock(&g_rss.lock);
    const std::int64_t kib = read_rss_kib(g_rss.fd);
    const std::uint64_t now = now_ns();
    pthread_mutex_lock(&g_rss.lock);
    if (kib < 0) break;  // the program closed our descriptor: no more samples
    g_rss.bins.add(now - g_rss.t0, kib);
    g_rss.samples.fetch_add(1, std::memory_order_relaxed);
    timespec until{};
    const std::uint64_t at = now + (std::uint64_t{1} << g_rss.bins.shift());
    until.tv_sec = static_cast<time_t>(at / 1000000000u), until.tv_nsec = static_cast<long>(at % 1000000000u);
    while (!g_rss.stop && pthread_cond_timedwait(&g_rss.wake, &g_rss.lock, &until) != ETIMEDOUT) {
    }
  }
  pthread_mutex_unlock(&g_rss.lock);
  return nullptr;
}

}  // namespace

void rss_sampler_start() noexcept {
  if (g_rss.running) return;
  g_rss.fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (g_rss.fd < 0) return;
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&g_rss.wake, &ca);
  pthread_condattr_destroy(&ca);
  g_rss.bins.start(20);
  g_rss.stop = false;
  g_rss.t0 = now_ns();
  g_rss.samples.store(0, std::memory_order_relaxed);
  g_rss.owner = getpid();
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 64 * 1024);
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);  // the thread starts with every signal blocked
  g_rss.running = pthread_create(&g_rss.thread, &attr, sample_loop, nullptr) == 0;
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  pthread_attr_destroy(&attr);
  if (!g_rss.running) close(g_rss.fd), g_rss.fd = -1;
}

void rss_sampler_stop() noexcept {
  if (!g_rss.running || getpid() != g_rss.owner) return;
  pthread_mutex_lock(&g_rss.lock);
  g_rss.stop = true;
  pthread_cond_signal(&g_rss.wake);
  pthread_mutex_unlock(&g_rss.lock);
  pthread_join(g_rss.thread, nullptr);
  g_rss.running = false;
  // One last sample at t2 from this thread: the last bin holds the memory the run ended with
  // even where a loaded machine never ran the sampler after the program's last change.
  if (const std::int64_t kib = read_rss_kib(g_rss.fd); kib >= 0) g_rss.bins.add(now_ns() - g_rss.t0, kib);
  close(g_rss.fd);
  g_rss.fd = -1;
}

std::vector<std::int64_t> rss_timeline(int bins, double bin_s) {
  if (g_rss.running) return {};  // not stopped: its bins are still being written
  return fold_rss(g_rss.bins, bins, bin_s);
}

int rss_sampler_samples() noexcept { return g_rss.samples.load(std::memory_order_relaxed); }

}  // namespace hpcsens::preload
