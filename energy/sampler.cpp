#include "energy/sampler.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <map>

#include "common/text_escape.h"
#include "energy/energy_math.h"

namespace hpcsens::energy {
using nlohmann::json;

double monotonic_s() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

namespace {
std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return text::encode_outside(buf);
}
}  // namespace

Session::Session(std::string root, std::function<double()> clock) : root_(std::move(root)), clock_(std::move(clock)) {
  Discovery d = discover(root_);
  reason_ = d.reason;
  if (!available()) return;
  dram_note_ = missing_dram_note(d.zones);
  interval_s_ = kMaxIntervalS;
  for (auto& z : d.zones) {
    interval_s_ = std::min(interval_s_, sample_interval_s(z.max_range_uj));
    Counter c;
    c.zone = std::move(z);
    std::string why;
    // Unreadable at the start (EACCES for non-root): no energy for this node, and why.
    if (!read_energy_uj(c.zone, &c.last_uj, &why)) {
      counters_.clear();
      reason_ = "not available: " + why;
      return;
    }
    counters_.push_back(std::move(c));
  }
  start_s_ = end_s_ = clock_();
  samples_ = 1;
}

void Session::sample() {
  if (!available()) return;
  for (auto& c : counters_) {
    if (!c.error.empty()) continue;
    std::uint64_t now = 0;
    std::string why;
    if (!read_energy_uj(c.zone, &now, &why)) {
      c.error = why;
      continue;
    }
    const auto d = delta_uj(c.last_uj, now, c.zone.max_range_uj);  // both checked in range: always set
    c.total_uj += d.value_or(0);
    if (wrapped(c.last_uj, now)) ++c.wraps;
    c.last_uj = now;
  }
  end_s_ = clock_();
  ++samples_;
}

json Session::finish() {
  json node = {{"host", host_name()}, {"source", "powercap"}, {"root", text::encode_outside(root_)}};
  if (!available()) {
    node["available"] = false;
    node["reason"] = text::encode_outside(reason_);
    return node;
  }
  sample();
  const double span = end_s_ - start_s_;
  node["available"] = true;
  node["interval_s"] = interval_s_;
  node["samples"] = samples_;
  node["duration_s"] = span;
  json domains = json::array();
  std::map<std::string, double> totals;
  for (const auto& c : counters_) {
    json d = {{"name", c.zone.label}, {"domain", c.zone.domain}, {"zone", c.zone.id},
              {"max_energy_range_uj", c.zone.max_range_uj}};
    if (!c.error.empty()) {
      d["available"] = false;
      d["reason"] = text::encode_outside("stopped reading mid-run: " + c.error);
    } else {
      const double joules = static_cast<double>(c.total_uj) * 1e-6;
      d["available"] = true;
      d["joules"] = joules;
      if (const auto w = mean_watts(joules, span)) d["mean_w"] = *w;
      d["wraps"] = c.wraps;
      totals[c.zone.domain] += joules;
    }
    domains.push_back(std::move(d));
  }
  node["domains"] = std::move(domains);
  node["joules_by_domain"] = totals;
  if (!dram_note_.empty()) node["note"] = dram_note_;
  return node;
}

BackgroundSampler::BackgroundSampler(std::string root) : session_(std::move(root)) {
  if (session_.available()) thread_ = std::thread([this] { loop(); });
}

BackgroundSampler::~BackgroundSampler() { stop(); }

void BackgroundSampler::loop() {
  // Signals stay with the thread that forwards them to the job (run/job_control.h).
  sigset_t all;
  sigfillset(&all);
  ::pthread_sigmask(SIG_BLOCK, &all, nullptr);
  const auto period = std::chrono::duration<double>(session_.interval_s());
  std::unique_lock<std::mutex> lock(mu_);
  while (!cv_.wait_for(lock, period, [this] { return stopping_; })) session_.sample();
}

int BackgroundSampler::samples() {
  std::lock_guard<std::mutex> lock(mu_);
  return session_.samples();
}

json BackgroundSampler::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return result_;
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  result_ = session_.finish();
  return result_;
}

json BackgroundSampler::snapshot() {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_) return result_;
  return session_.finish();
}

json energy_section(const std::vector<json>& nodes) {
  json s = {{"source", "powercap"}, {"covers", kCoverage}, {"nodes", nodes}};
  const auto avail = std::find_if(nodes.begin(), nodes.end(), [](const json& n) { return n.value("available", false); });
  s["available"] = avail != nodes.end();
  if (avail == nodes.end())
    s["reason"] = nodes.empty() ? std::string("not available: no node was measured")
                                : nodes.front().value("reason", std::string("not available"));
  return s;
}

}  // namespace hpcsens::energy
