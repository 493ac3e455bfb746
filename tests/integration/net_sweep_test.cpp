// A real sweep over the network-delay knob on this machine (not emulated): sweep -> fit ->
// predict, with the critical-path messages and bytes of examples/net_pattern.c recovered within
// 5 %; and a sweep killed mid-run leaves no delay for the next job.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>

#include <nlohmann/json.hpp>

#include "run_fixture.h"

namespace hpcsens::testing {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

const std::string kPattern = std::string(HPCSENS_EXAMPLES_DIR) + "/example_net_pattern";
constexpr int kIters = 300, kBytes = 65536;

void put(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

json load(const fs::path& p) {
  std::ifstream in(p);
  return json::parse(in);
}

// 2 ranks on this 2-core VM; delays large enough (up to ~0.5 s a run) to stand out of the noise.
std::string spec_text(const fs::path& out, int reps) {
  return "job:\n  command: [mpirun, -np, '2', --oversubscribe, '" + kPattern + "', '" + std::to_string(kIters) +
         "', '" + std::to_string(kBytes) + "', '200']\n  timeout_s: 120\n"
         "repetitions: " + std::to_string(reps) + "\nretries: 1\noutput: '" + out.string() + "'\n"
         "knobs:\n  network:\n"
         "    - {name: base}\n"
         "    - {name: lat200, latency_us: 200}\n"
         "    - {name: lat400, latency_us: 400}\n"
         "    - {name: bw250, bandwidth_gbs: 0.25}\n"
         "    - {name: bw125, bandwidth_gbs: 0.125}\n"
         "    - {name: both, latency_us: 200, bandwidth_gbs: 0.25}\n"
         "calibration: {stream_array_mb: 8, stream_ntimes: 2}\n";
}

const json* term(const json& model, const std::string& name) {
  for (const auto& t : model.at("terms"))
    if (t.at("name") == name) return &t;
  return nullptr;
}

// How much longer than asked 100 spins of 200 us take here. On a quiet machine 1.0; on one whose
// cores are oversubscribed by other processes a spinning rank loses its core mid-spin and every
// delay stretches (4-5x seen on this 2-core VM at load 18), and so do the job's other waits,
// which no knob setting explains: recovering work within 5 % then measures the load, not the
// method.
double spin_inflation() {
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  for (int i = 0; i < 100; ++i) {
    const auto end = clock::now() + std::chrono::microseconds(200);
    while (clock::now() < end) {
    }
  }
  return std::chrono::duration<double>(clock::now() - t0).count() / 0.02;
}

class NetSweep : public HpcsensRunTest {};

TEST_F(NetSweep, RealSweepFitAndPredictRecoverTheKnownCriticalPath) {
  if (const double f = spin_inflation(); f > 1.1)
    GTEST_SKIP() << "this machine's cores are oversubscribed (200 us spins take " << f
                 << "x as long): a timing acceptance cannot be measured now; rerun when the machine is quiet";
  fs::create_directories(out_);
  put(out_ / "spec.yaml", spec_text(out_ / "sweep", 3));
  auto r = run_process({HPCSENS_BIN, "sweep", (out_ / "spec.yaml").string(), "--no-fit"}, 900);
  ASSERT_EQ(r.exit_status, 0) << r.err;
  // Every record carries the injected and the measured network, and the rates the model uses.
  const json rec = load(out_ / "sweep/records/p05-r1.json");
  const json& c = rec.at("config");
  EXPECT_EQ(c.at("net_config"), "both");
  EXPECT_EQ(c.at("net_added_latency_us"), 200.0);
  EXPECT_EQ(c.at("net_added_bandwidth_gbs"), 0.25);
  EXPECT_GT(c.at("net_measured").at("latency_us_intra").get<double>(), 0);
  EXPECT_GT(c.at("net_measured").at("bandwidth_gbs_intra").get<double>(), 0);
  // The added part as the preload achieved it (achieved / requested spin time of the run).
  const double f = c.at("net_delay_achieved_factor");
  EXPECT_GE(f, 1.0);
  EXPECT_EQ(f, rec.at("preload").at("net_delay").at("achieved_factor").get<double>());
  EXPECT_NEAR(c.at("net_latency_us").get<double>(), 200 * f + c.at("net_base_latency_us").get<double>(), 1e-9);
  EXPECT_NEAR(c.at("net_ns_per_byte").get<double>(), 4 * f + 1 / c.at("net_base_bandwidth_gbs").get<double>(), 1e-9);
  EXPECT_EQ(rec.at("preload").at("net_delay").at("added_latency_us"), 200.0);

  const std::string model = (out_ / "model.json").string();
  r = run_process({HPCSENS_BIN, "fit", (out_ / "sweep/records").string(), "--model", "net_lat+net_bw+fixed", "-o",
                   model},
                  300);
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const json m = load(model);
  const double want_msgs = double(kIters) * 4;                     // 3 + ceil(log2 2) per iteration
  const double want_bytes = double(kIters) * (3.0 * kBytes + 8);  // 3 x 64 KiB + one double
  const json* lat = term(m, "net_lat");
  const json* bw = term(m, "net_bw");
  ASSERT_TRUE(lat && bw) << m.dump(1);
  const double got_msgs = lat->at("work").get<double>() * 1e6, got_bytes = bw->at("work").get<double>() * 1e9;
  std::printf("recovered %.0f messages (want %.0f, %+.2f %%), %.0f bytes (want %.0f, %+.2f %%)\n", got_msgs,
              want_msgs, 100 * (got_msgs / want_msgs - 1), got_bytes, want_bytes, 100 * (got_bytes / want_bytes - 1));
  EXPECT_NEAR(got_msgs / want_msgs, 1.0, 0.05);
  EXPECT_NEAR(got_bytes / want_bytes, 1.0, 0.05);

  // Predict: a network with half the measured latency and twice the bandwidth is faster than the
  // slowest swept one, and the model's own fixed part bounds it from below.
  r = run_process({HPCSENS_BIN, "predict", model, "--net-latency-us", "1", "--net-bandwidth-gbs", "8", "--format",
                   "json"},
                  120);
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const json p = json::parse(r.out);
  const double predicted = p.at("predictions").at(0).at("predicted_s");
  const double fixed = term(m, "fixed")->at("work");
  EXPECT_NEAR(predicted, fixed + want_msgs * 1e-6 + want_bytes / 8e9, 0.05 * predicted) << r.out;
}

// The knob lives only in one run's environment: a sweep killed -9 in the middle of a delayed run
// leaves nothing behind, and the next job runs undelayed.
TEST_F(NetSweep, AKilledSweepLeavesNoDelayForTheNextJob) {
  fs::create_directories(out_);
  const fs::path dir = out_ / "sweep";
  put(out_ / "spec.yaml", "job:\n  command: [mpirun, -np, '2', --oversubscribe, '" + kPattern +
                              "', '2000', '64', '0']\n  timeout_s: 120\norder: sequential\n"
                              "output: '" + dir.string() + "'\nknobs:\n  network:\n"
                              "    - {name: slow, latency_us: 2000}\ncalibration: {stream: false, network: false}\n");
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::setpgid(0, 0);
    ::execl(HPCSENS_BIN, HPCSENS_BIN, "sweep", (out_ / "spec.yaml").c_str(), "--no-fit", (char*)nullptr);
    ::_exit(127);
  }
  // Wait for the delayed run to start (the journal names its run module), then kill everything.
  bool started = false;
  for (int i = 0; i < 600 && !started; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    std::ifstream in(dir / "journal.jsonl");
    std::string line;
    while (std::getline(in, line)) started = started || line.find("\"type\":\"child\"") != std::string::npos;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ::kill(-pid, SIGKILL);
  int st = 0;
  ::waitpid(pid, &st, 0);
  ASSERT_TRUE(started) << "the sweep never started its run";
  ASSERT_TRUE(WIFSIGNALED(st));
  // The knob is journalled with the point it was applied at.
  bool journalled = false;
  std::ifstream jin(dir / "journal.jsonl");
  for (std::string line; std::getline(jin, line);) {
    const json j = json::parse(line, nullptr, false);
    if (!j.is_discarded() && j.value("type", "") == "apply")
      journalled = j.at("point").at("net_added_latency_us") == 2000.0 && j.at("point").at("net_config") == "slow";
  }
  EXPECT_TRUE(journalled);
  // Nothing to restore: the journal saved no machine state for the network knob.
  auto r = run_process({HPCSENS_BIN, "sweep", "--restore", dir.string()}, 60);
  EXPECT_EQ(r.exit_status, 0) << r.err;
  // The next job: no delay applied, and 2000 x 4 messages did not take 2000 x 4 x 2 ms.
  r = wrap({"mpirun", "-np", "2", "--oversubscribe", kPattern, "2000", "64", "0"});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const json rec = record(r);
  EXPECT_FALSE(rec.at("preload").contains("net_delay"));
  EXPECT_LT(rec.at("timing").at("job_s").get<double>(), 2000 * 4 * 2e-3);
}

}  // namespace
}  // namespace hpcsens::testing
