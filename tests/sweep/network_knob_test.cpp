// knobs.network: the spec, the grid, and what reaches a run (the ranks' environment only).
#include <gtest/gtest.h>

#include <set>

#include "common/errors.h"
#include "sweep/knobs/knobs.h"
#include "sweep/calibrate/net_calibrate.h"
#include "sweep/spec/plan.h"
#include "sweep/spec/spec.h"
#include "sweep/spec/sweep_common.h"

namespace hpcsens::sweep {
namespace {

const char* kSpec = R"(job: {command: [mpirun, -np, 2, ./ring]}
repetitions: 2
knobs:
  network:
    - {name: base}
    - {name: slow, latency_us: 20}
    - {name: thin, latency_us: 5, bandwidth_gbs: 0.5}
)";

TEST(NetworkKnob, ParsesSettings) {
  const auto s = parse_spec_text(kSpec, "net.yaml");
  ASSERT_EQ(s.network.size(), 3u);
  EXPECT_EQ(s.network[0].name, "base");
  EXPECT_EQ(s.network[0].latency_us, 0);
  EXPECT_EQ(s.network[0].bandwidth_gbs, 0);
  EXPECT_EQ(s.network[1].latency_us, 20);
  EXPECT_EQ(s.network[2].bandwidth_gbs, 0.5);
  EXPECT_EQ(s.network[2].line, 7);
}

TEST(NetworkKnob, CombinesWithCoreKnobsRandomizedAndRepeated) {
  auto s = parse_spec_text(kSpec, "net.yaml");
  const Plan plan = make_plan(s, {1.2, 2.4});
  ASSERT_EQ(plan.points.size(), 6u);  // cpu x network
  ASSERT_EQ(plan.runs.size(), 12u);
  std::set<std::string> labels;
  for (const auto& p : plan.points) labels.insert(p.label);
  EXPECT_TRUE(labels.count("cpu1.2_net-base") && labels.count("cpu2.4_net-thin")) << *labels.begin();
  // Randomized: not the grid order.
  bool in_order = true;
  for (std::size_t i = 1; i < plan.runs.size(); ++i) in_order = in_order && plan.runs[i].point >= plan.runs[i - 1].point;
  EXPECT_FALSE(in_order);
}

TEST(NetworkKnob, PointConfigJournalsTheAddedDelay) {
  auto s = parse_spec_text(kSpec, "net.yaml");
  const Plan plan = make_plan(s, {});
  const auto j = point_json(plan.points[2], s);
  EXPECT_EQ(j.at("net_config"), "thin");
  EXPECT_EQ(j.at("net_added_latency_us"), 5);
  EXPECT_EQ(j.at("net_added_bandwidth_gbs"), 0.5);
  EXPECT_FALSE(point_json(plan.points[0], s).contains("cpu_ghz_requested"));
}

TEST(NetworkKnob, ReachesTheRanksEnvironmentOnlyAndChangesNoMachineState) {
  const auto s = parse_spec_text(kSpec, "net.yaml");
  const KnobSet knobs(s, RealSysfs());  // no core knob: nothing is probed
  const Plan plan = make_plan(s, knobs.cpu_values());
  EXPECT_FALSE(knobs.changes_machine());
  EXPECT_TRUE(knobs.files_to_save().empty());
  EXPECT_TRUE(knobs.restore_actions().empty());
  const auto env = knobs.rank_env(plan.points[2]);
  ASSERT_EQ(env.size(), 2u);
  EXPECT_EQ(env[0], (std::pair<std::string, std::string>{"HPCSENS_NET_LATENCY_US", "5"}));
  EXPECT_EQ(env[1], (std::pair<std::string, std::string>{"HPCSENS_NET_BANDWIDTH_GBS", "0.5"}));
  EXPECT_EQ(knobs.job_argv(s.command, plan.points[2]), s.command);  // the command is untouched
}

TEST(NetworkKnob, ModelRatesAreTheMeasuredBasePlusTheAchievedAddition) {
  nlohmann::json c = {{"net_added_latency_us", 20.0}, {"net_added_bandwidth_gbs", 0.5},
                      {"net_base_latency_us", 1.5}, {"net_base_bandwidth_gbs", 10.0}};
  add_network_rates(c);
  EXPECT_DOUBLE_EQ(c["net_latency_us"], 21.5);
  EXPECT_DOUBLE_EQ(c["net_ns_per_byte"], 0.1 + 2.0);  // 1/10 GB/s + 1/0.5 GB/s
  EXPECT_EQ(c["net_rates_source"], "measured base + added by the knob");
  // Spins that took 1.25x as long as asked added 1.25x the delay.
  add_network_rates(c, 1.25);
  EXPECT_DOUBLE_EQ(c["net_latency_us"], 1.5 + 25.0);
  EXPECT_DOUBLE_EQ(c["net_ns_per_byte"], 0.1 + 2.5);
  EXPECT_EQ(c["net_delay_achieved_factor"], 1.25);
  // Nothing added at the baseline: the rate is still the measured network's, finite and positive.
  nlohmann::json baseline = {{"net_added_latency_us", 0.0}, {"net_added_bandwidth_gbs", 0.0},
                             {"net_base_latency_us", 0.8}, {"net_base_bandwidth_gbs", 4.0}};
  add_network_rates(baseline);
  EXPECT_DOUBLE_EQ(baseline["net_latency_us"], 0.8);
  EXPECT_DOUBLE_EQ(baseline["net_ns_per_byte"], 0.25);
  // No calibration: the added delay alone is not a rate, so none is written, and the record says why.
  nlohmann::json bare = {{"net_added_latency_us", 20.0}, {"net_added_bandwidth_gbs", 0.0}};
  add_network_rates(bare);
  EXPECT_FALSE(bare.contains("net_latency_us"));
  EXPECT_FALSE(bare.contains("net_ns_per_byte"));
  EXPECT_NE(bare["net_rates_source"].get<std::string>().find("the network was not measured"), std::string::npos);
  // Not a network sweep: nothing added.
  nlohmann::json none = {{"cpu_ghz", 2.0}};
  add_network_rates(none);
  EXPECT_FALSE(none.contains("net_latency_us"));
}

TEST(NetworkKnob, AchievedFactorComesFromThePreloadsNote) {
  EXPECT_EQ(achieved_factor(nlohmann::json::object()), 1.0);
  EXPECT_EQ(achieved_factor({{"net_delay", {{"achieved_factor", 1.07}}}}), 1.07);
  EXPECT_EQ(achieved_factor({{"net_delay", {{"achieved_factor", 0.5}}}}), 1.0);  // a spin never ends early
  EXPECT_EQ(achieved_factor({{"net_delay", {{"achieved_factor", "x"}}}}), 1.0);
}

std::string error_of(const std::string& knobs) {
  try {
    parse_spec_text("job: {command: [mpirun, ./a]}\nknobs:\n  network:\n" + knobs, "bad.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(NetworkKnob, BadSettingsNameFileLineAndField) {
  EXPECT_EQ(error_of("    - {name: a, latency_us: -1}\n"),
            "bad.yaml:4: knobs.network[0].latency_us: must be an added latency in microseconds within [0, 1e6], got -1");
  EXPECT_EQ(error_of("    - {name: a}\n    - {name: b, latency_us: .nan}\n"),
            "bad.yaml:5: knobs.network[1].latency_us: must be a finite number, got '.nan'");
  EXPECT_EQ(error_of("    - {name: a, bandwidth_gbs: .inf}\n"),
            "bad.yaml:4: knobs.network[0].bandwidth_gbs: must be a finite number, got '.inf'");
  EXPECT_EQ(error_of("    - {name: a, bandwidth_gbs: -2}\n"),
            "bad.yaml:4: knobs.network[0].bandwidth_gbs: must be 0 (no per-byte delay) or an added link's GB/s "
            "within [0.001, 1e6], got -2");
  EXPECT_EQ(error_of("    - {name: a, latency: 3}\n"),
            "bad.yaml:4: knobs.network[0].latency: unknown field (allowed: bandwidth_gbs, latency_us, name)");
  EXPECT_EQ(error_of("    - {latency_us: 3}\n"), "bad.yaml:4: knobs.network[0].name: missing (each network setting needs a name)");
  EXPECT_EQ(error_of("    - {name: 'a b'}\n"),
            "bad.yaml:4: knobs.network[0].name: must be 1 to 64 letters, digits, '-', '_' or '.', got 'a b'");
  EXPECT_EQ(error_of("    - {name: a}\n    - {name: a, latency_us: 1}\n"),
            "bad.yaml:5: knobs.network[1].name: duplicate name 'a'");
  EXPECT_EQ(error_of("    - {name: a, latency_us: 1}\n    - {name: b, latency_us: 1.0}\n"),
            "bad.yaml:5: knobs.network[1]: the same latency_us and bandwidth_gbs as an earlier setting; each point "
            "must differ");
  EXPECT_EQ(error_of("    {name: a}\n"), "bad.yaml:4: knobs.network: must be a non-empty list of {name, latency_us, bandwidth_gbs}");
}

TEST(NetworkKnob, ShippedExampleParses) {
  const auto s = parse_spec_file(std::string(HPCSENS_SOURCE_DIR) + "/examples/sweeps/network.yaml");
  EXPECT_EQ(s.network.size(), 6u);
  EXPECT_EQ(make_plan(s, {}).runs.size(), 18u);
}

TEST(NetworkKnob, TheEmulatedLauncherRefusesIt) {
  try {
    parse_spec_text("emulated: {W_cpu: 1, W_mem: 1, T_io: 0, mem_gbs: 10}\nknobs:\n  cpu_ghz: [1, 2]\n"
                    "  network: [{name: a}]\n", "emu.yaml");
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "emu.yaml:4: knobs.network: is not supported by the emulated launcher (the delay is real: run the job)");
  }
}

}  // namespace
}  // namespace hpcsens::sweep
