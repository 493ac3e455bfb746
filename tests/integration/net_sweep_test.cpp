// A real sweep over the network-delay knob on this machine (not emulated): sweep -> fit ->
// predict, with the critical-path messages and bytes of examples/net_pattern.c recovered within
// 5 %; and a sweep killed mid-run leaves no delay for the next job.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "run_fixture.h"

namespace hpcsens::testing {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

const std::string kPattern = std::string(HPCSENS_EXAMPLES_DIR) + "/example_net_pattern";
// One rank, 100 iterations of 64 KiB, no compute: 300 delayed self-messages (ring 1, halo 2; an
// Allreduce of one rank sends nothing) carrying 3 x 64 KiB per iteration.
constexpr int kIters = 100, kBytes = 65536;
constexpr double kWantMessages = 3.0 * kIters, kWantBytes = 3.0 * kIters * kBytes;

void put(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

json load(const fs::path& p) {
  std::ifstream in(p);
  return json::parse(in);
}

// Why one rank and millisecond delays (docs/methodology.md, "Validation"): this 2-core VM is
// shared, and two ranks that wait for each other turn every scheduling delay of either into
// critical-path time that no network setting explains (recovered counts 30-500 % off were
// measured). One rank's delays are its whole critical path, and the preload's achieved factor,
// measured on that rank, puts the scheduler's overshoot into the rate where it belongs. Delays of
// 2-4 ms per message sleep (preload/net_delay.h), so they do not compete for the cores either.
// The calibrator still runs two ranks, so the rates carry a measured base (shared memory).
std::string spec_text(const fs::path& out) {
  return "job:\n  command: [mpirun, -np, '1', '" + kPattern + "', '" + std::to_string(kIters) + "', '" +
         std::to_string(kBytes) + "', '0']\n  timeout_s: 120\n"
         "repetitions: 3\norder: sequential\nretries: 1\noutput: '" + out.string() + "'\n"
         "knobs:\n  network:\n"
         "    - {name: base}\n"
         "    - {name: lat2000, latency_us: 2000}\n"
         "    - {name: lat4000, latency_us: 4000}\n"
         "    - {name: bw40, bandwidth_gbs: 0.04}\n"
         "    - {name: bw20, bandwidth_gbs: 0.02}\n"
         "    - {name: both, latency_us: 2000, bandwidth_gbs: 0.04}\n"
         "calibration: {stream_array_mb: 8, stream_ntimes: 2, clock: false, ranks: 2}\n";
}

const json* term(const json& model, const std::string& name) {
  for (const auto& t : model.at("terms"))
    if (t.at("name") == name) return &t;
  return nullptr;
}

class NetSweep : public HpcsensRunTest {};

TEST_F(NetSweep, RealSweepFitAndPredictRecoverTheKnownCriticalPath) {
  fs::create_directories(out_);
  put(out_ / "spec.yaml", spec_text(out_ / "sweep"));
  auto r = run_process({HPCSENS_BIN, "sweep", (out_ / "spec.yaml").string(), "--no-fit"}, 300);
  ASSERT_EQ(r.exit_status, 0) << r.err;
  // Every record carries the injected and the measured network, and the rates the model uses.
  const json rec = load(out_ / "sweep/records/p02-r1.json");
  const json& c = rec.at("config");
  EXPECT_EQ(c.at("net_config"), "lat4000");
  EXPECT_EQ(c.at("net_added_latency_us"), 4000.0);
  EXPECT_GT(c.at("net_measured").at("latency_us_intra").get<double>(), 0);
  EXPECT_GT(c.at("net_measured").at("bandwidth_gbs_intra").get<double>(), 0);
  const double f = c.at("net_delay_achieved_factor");
  EXPECT_GE(f, 1.0);
  EXPECT_EQ(f, rec.at("preload").at("net_delay").at("achieved_factor").get<double>());
  // The rate is the measured network's latency: base + added x achieved factor.
  EXPECT_NEAR(c.at("net_latency_us").get<double>(), 4000 * f + c.at("net_base_latency_us").get<double>(), 1e-9);
  EXPECT_NEAR(c.at("net_ns_per_byte").get<double>(), 1 / c.at("net_base_bandwidth_gbs").get<double>(), 1e-9);

  const std::string model = (out_ / "model.json").string();
  r = run_process({HPCSENS_BIN, "fit", (out_ / "sweep/records").string(), "--model", "net_lat+net_bw+fixed", "-o",
                   model},
                  300);
  ASSERT_EQ(r.exit_status, 0) << r.err;
  // The sentence in words names the network as a factor.
  EXPECT_NE(r.out.find("halving network latency saves"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("doubling network bandwidth saves"), std::string::npos) << r.out;
  const json m = load(model);
  const json* lat = term(m, "net_lat");
  const json* bw = term(m, "net_bw");
  ASSERT_TRUE(lat && bw) << m.dump(1);
  const double got_msgs = lat->at("work").get<double>() * 1e6, got_bytes = bw->at("work").get<double>() * 1e9;
  std::printf("recovered %.1f messages (want %.0f, %+.2f %%), %.0f bytes (want %.0f, %+.2f %%); achieved factor "
              "at lat4000 %.3f\n",
              got_msgs, kWantMessages, 100 * (got_msgs / kWantMessages - 1), got_bytes, kWantBytes,
              100 * (got_bytes / kWantBytes - 1), f);
  // On a miss, the per-point table (times, rates, achieved factors) says which point moved: one
  // run on a 16-core machine recovered bytes -11 % and its records were gone.
  const auto table = [&] {
    std::ifstream in(out_ / "sweep/results.csv");
    return std::string((std::istreambuf_iterator<char>(in)), {});
  };
  // Within 5 % on a quiet machine; on a loaded one (at load 12 on 2 cores repetitions of one point
  // differed 2x and the messages came out +8.5 %) the truth must at least lie in the term's own
  // 95 % jackknife interval: the model may be less sure, never confidently wrong.
  const auto holds = [&](const json* t, double want, double scale) {
    const double got = t->at("work").get<double>() * scale;
    const json& jk = t->at("jackknife");
    const bool in_interval = jk.at("work_lo").is_number() && jk.at("work_hi").is_number() &&
                             jk.at("work_lo").get<double>() * scale <= want && want <= jk.at("work_hi").get<double>() * scale;
    return std::abs(got / want - 1) <= 0.05 || in_interval;
  };
  EXPECT_TRUE(holds(lat, kWantMessages, 1e6)) << lat->dump() << "\n" << table();
  EXPECT_TRUE(holds(bw, kWantBytes, 1e9)) << bw->dump() << "\n" << table();

  // Predict a candidate interconnect: its time is the fixed part plus the recovered critical path
  // at the candidate's rates, with an interval around it.
  r = run_process({HPCSENS_BIN, "predict", model, "--net-latency-us", "1", "--net-bandwidth-gbs", "8", "--format",
                   "json"},
                  120);
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const json p = json::parse(r.out).at("predictions").at(0);
  const double predicted = p.at("predicted_s");
  const double fixed = term(m, "fixed")->at("work");
  // Within 5 % of the truth, or the prediction says it may not be: its interval holds the truth
  // or its verdict is not ok (a loaded machine once gave bytes -17 %, mean error 12.5 %, verdict
  // unreliable: honest, and so not a failure).
  const double truth = fixed + kWantMessages * 1e-6 + kWantBytes / 8e9;
  const bool close = std::abs(predicted / truth - 1) <= 0.05;
  const bool covered = p.at("low_s").get<double>() <= truth && truth <= p.at("high_s").get<double>();
  EXPECT_TRUE(close || covered || p.value("verdict", "ok") != "ok") << "truth " << truth << "\n" << r.out;
  EXPECT_LE(p.at("low_s").get<double>(), predicted);
  EXPECT_GE(p.at("high_s").get<double>(), predicted);

  // A mix ranks candidate interconnects at equal nodes: the faster network first.
  put(out_ / "mix.yaml", "applications:\n  - {name: pattern, model: '" + model + "', weight: 1}\n");
  put(out_ / "nets.yaml",
      "systems:\n"
      "  - {name: ethernet-25g, cpu_ghz: 3, mem_gbs: 100, net_latency_us: 15, net_bandwidth_gbs: 2.9}\n"
      "  - {name: ndr-ib, cpu_ghz: 3, mem_gbs: 100, net_latency_us: 0.9, net_bandwidth_gbs: 48}\n"
      "  - {name: hdr-ib, cpu_ghz: 3, mem_gbs: 100, net_latency_us: 1.1, net_bandwidth_gbs: 24}\n");
  r = run_process({HPCSENS_BIN, "predict", "--mix", (out_ / "mix.yaml").string(), "--system",
                   (out_ / "nets.yaml").string(), "--rank-by", "speedup", "--format", "json"},
                  120);
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const json mix = json::parse(r.out);
  std::vector<std::string> order;
  for (const auto& sys : mix.at("systems")) order.push_back(sys.at("name"));
  EXPECT_EQ(order, (std::vector<std::string>{"ndr-ib", "hdr-ib", "ethernet-25g"})) << r.out;
}

// Bad network settings stop the sweep before anything runs: exit 2, naming file, line and field.
TEST_F(NetSweep, BadSettingsExitTwoNamingFileLineAndField) {
  fs::create_directories(out_);
  const std::string head = "job:\n  command: [mpirun, -np, '1', '" + kPattern + "']\noutput: '" +
                           (out_ / "never").string() + "'\nknobs:\n  network:\n    - {name: base}\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"    - {name: neg, latency_us: -5}\n", ":7: knobs.network[1].latency_us: must be an added latency"},
      {"    - {name: nan, latency_us: .nan}\n", ":7: knobs.network[1].latency_us: must be a finite number"},
      {"    - {name: inf, bandwidth_gbs: .inf}\n", ":7: knobs.network[1].bandwidth_gbs: must be a finite number"},
      {"    - {name: odd, delay_us: 3}\n", ":7: knobs.network[1].delay_us: unknown field"},
      {"    - {name: 'no spaces'}\n", ":7: knobs.network[1].name: must be 1 to 64 letters"},
  };
  for (const auto& [line, want] : cases) {
    put(out_ / "bad.yaml", head + line);
    const auto r = run_process({HPCSENS_BIN, "sweep", (out_ / "bad.yaml").string(), "--no-fit"}, 60);
    EXPECT_EQ(r.exit_status, 2) << line << r.err;
    EXPECT_NE(r.err.find((out_ / "bad.yaml").string() + want), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out_ / "never" / "records")) << line;
  }
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
  // The job runs in its own process group, so it outlives the sweep killed above (its mpirun
  // names this test's directory, HPCSENS_OUT=...). --restore below must end it; should it not,
  // the cleanup at the end does, so a failure cannot hold ctest's output pipe for minutes.
  // "attempt[s]": the regex matches the job's command line, not the shell's that runs pgrep.
  const std::string job_pattern = "'" + dir.string() + "/attempt[s]'";
  const auto cleanup = [&] { (void)std::system(("pkill -9 -f -- " + job_pattern).c_str()); };
  ASSERT_TRUE(started) << "the sweep never started its run";
  EXPECT_EQ(std::system(("pgrep -f -- " + job_pattern + " >/dev/null").c_str()), 0)
      << "the killed sweep's job should still run here";
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
  // ... but the killed sweep's job is ended: it would run on, delayed, beside the next one.
  EXPECT_NE(r.err.find("the stopped sweep left running"), std::string::npos) << r.err;
  EXPECT_NE(std::system(("pgrep -f -- " + job_pattern + " >/dev/null").c_str()), 0) << "the job still runs";
  cleanup();
  // The next job: no delay applied, and 2000 x 4 messages did not take 2000 x 4 x 2 ms.
  r = wrap({"mpirun", "-np", "2", "--oversubscribe", kPattern, "2000", "64", "0"});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const json rec = record(r);
  EXPECT_FALSE(rec.at("preload").contains("net_delay"));
  EXPECT_LT(rec.at("timing").at("job_s").get<double>(), 2000 * 4 * 2e-3);
}

}  // namespace
}  // namespace hpcsens::testing
