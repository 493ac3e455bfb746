// Sweep spec parsing: a full spec, and bad specs whose errors name file, line and field.
#include <gtest/gtest.h>

#include "common/errors.h"
#include "sweep/spec/spec.h"

namespace hpcsens::sweep {
namespace {

TEST(SweepSpec, ParsesEveryField) {
  const auto s = parse_spec_text(R"(job:
  command: [srun, -n, 64, ./app, --in, x]
  timeout_s: 600
repetitions: 3
order: sequential
seed: 9
retries: 2
output: out-dir
events: topdown
knobs:
  cpu_ghz: [1.2, 2.0]
  cpu_backend: slurm
  uncore_ghz: [1.5, {min: 1.2, max: 2.0}]
  memory:
    - {name: fast, slurm_partition: hbm}
    - {name: slow, nodes: [n1, n2]}
    - {name: swap, manual: "reboot with DDR at 4800"}
backends: {sysfs_root: /tmp/fake}
calibration: {stream: true, stream_array_mb: 512, ranks: 8, latency: true, stream_ntimes: 5}
)", "full.yaml");
  EXPECT_EQ(s.command.size(), 6u);
  EXPECT_EQ(s.timeout_s, 600);
  EXPECT_EQ(s.repetitions, 3);
  EXPECT_FALSE(s.randomized);
  EXPECT_EQ(s.seed, 9u);
  EXPECT_EQ(s.retries, 2);
  EXPECT_EQ(s.output_dir, "out-dir");
  EXPECT_EQ(s.events, "topdown");
  EXPECT_EQ(s.cpu_backend, CpuBackend::kSlurm);
  EXPECT_EQ(s.cpu_ghz, (std::vector<double>{1.2, 2.0}));
  ASSERT_EQ(s.uncore.size(), 2u);
  EXPECT_EQ(s.uncore[0].min_ghz, 1.5);
  EXPECT_EQ(s.uncore[1].max_ghz, 2.0);
  ASSERT_EQ(s.memory.size(), 3u);
  EXPECT_EQ(s.memory[0].slurm_partition, "hbm");
  EXPECT_EQ(s.memory[1].nodes, (std::vector<std::string>{"n1", "n2"}));
  EXPECT_EQ(s.memory[2].manual, "reboot with DDR at 4800");
  EXPECT_EQ(s.sysfs_root, "/tmp/fake");
  EXPECT_EQ(*s.calibration.stream_array_mb, 512);
  EXPECT_EQ(*s.calibration.ranks, 8);
  EXPECT_TRUE(s.calibration.latency);
  EXPECT_EQ(s.calibration.stream_ntimes, 5);
  EXPECT_FALSE(s.emulation);
}

TEST(SweepSpec, DefaultsAndAllAvailable) {
  const auto s = parse_spec_text("job: {command: [mpirun, ./a]}\nknobs: {cpu_ghz: all}\n", "d.yaml");
  EXPECT_TRUE(s.cpu_all_available);
  EXPECT_TRUE(s.randomized);
  EXPECT_EQ(s.repetitions, 1);
  EXPECT_EQ(s.sysfs_root, "/sys");
  EXPECT_EQ(s.cpu_backend, CpuBackend::kCpufreq);
}

std::string error_of(const std::string& text) {
  try {
    parse_spec_text(text, "bad.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(SweepSpec, BadSpecsNameFileLineAndField) {
  EXPECT_EQ(error_of("job:\n  command: [a]\nrepetitons: 3\n"),
            "bad.yaml:3: repetitons: unknown field (allowed: array_max_running, backends, calibration, emulated, "
            "events, execution, job, knobs, order, output, repetitions, retries, sbatch, seed)");
  EXPECT_EQ(error_of("job:\n  command: [a]\nexecution: pbs\n"),
            "bad.yaml:3: execution: must be local or slurm-array, got 'pbs'");
  EXPECT_EQ(error_of("job:\n  command: [a]\nexecution: slurm-array\nknobs:\n  cpu_ghz: [1.2]\n"),
            "bad.yaml:3: execution: slurm-array sets the clock with srun --cpu-freq: it needs knobs.cpu_backend: slurm");
  EXPECT_EQ(error_of("job:\n  command: [a]\narray_max_running: 0\n"), "bad.yaml:3: array_max_running: must be >= 1, got 0");
  EXPECT_EQ(error_of("job:\n  command: [a]\nrepetitions: 0\n"), "bad.yaml:3: repetitions: must be >= 1, got 0");
  EXPECT_EQ(error_of("job:\n  command: [a]\nrepetitions: three\n"),
            "bad.yaml:3: repetitions: must be an integer, got 'three'");
  EXPECT_EQ(error_of("job:\n  timeout_s: 5\n"), "bad.yaml:2: job.command: missing");
  EXPECT_EQ(error_of("job:\n  command: mpirun\n"), "bad.yaml:2: job.command: must be a non-empty list of strings");
  EXPECT_EQ(error_of("job: {command: [a]}\nknobs:\n  cpu_ghz: [1.2, 2400]\n"),
            "bad.yaml:3: knobs.cpu_ghz[1]: must be within [0.1, 10] GHz, got 2400");
  EXPECT_EQ(error_of("job: {command: [a]}\nknobs:\n  cpu_ghz: [1.2, -1]\n"),
            "bad.yaml:3: knobs.cpu_ghz[1]: must be within [0.1, 10] GHz, got -1");
  EXPECT_EQ(error_of("job: {command: [a]}\norder: shuffled\n"),
            "bad.yaml:2: order: must be random or sequential, got 'shuffled'");
  EXPECT_EQ(error_of("job: {command: [a]}\nknobs:\n  uncore_ghz:\n    - {min: 2.0, max: 1.0}\n"),
            "bad.yaml:4: knobs.uncore_ghz[0]: min is above max");
  EXPECT_EQ(error_of("job: {command: [mpirun, ./a]}\nknobs:\n  cpu_ghz: [2]\n  cpu_backend: slurm\n"),
            "bad.yaml:4: knobs.cpu_backend: slurm sets --cpu-freq on the job's srun line, but job.command does "
            "not start with srun");
  EXPECT_EQ(error_of("job: {command: [a]}\nknobs:\n  memory:\n    - {name: x, manual: a, nodes: [n]}\n"),
            "bad.yaml:4: knobs.memory[0]: give one way to reach it: slurm_partition, slurm_constraint, nodes or manual");
  EXPECT_EQ(error_of("job: {command: [a]}\nknobs:\n  memory:\n    - {name: x}\n    - {name: x}\n"),
            "bad.yaml:5: knobs.memory[1].name: duplicate name 'x'");
  EXPECT_EQ(error_of("job: {command: [a]}\ncalibration:\n  latency: maybe\n"),
            "bad.yaml:3: calibration.latency: must be true or false, got 'maybe'");
  EXPECT_EQ(error_of("job: [a\n"), error_of("job: [a\n"));
  EXPECT_NE(error_of("job: [a\n").find("bad.yaml:"), std::string::npos);
  EXPECT_NE(error_of("job: [a\n").find("not valid YAML"), std::string::npos);
  EXPECT_EQ(error_of("- a\n- b\n"), "bad.yaml:1: the spec must be a YAML mapping (job:, knobs:, ...)");
}

// QA: each of these was accepted; each now names file:line: field.
TEST(SweepSpec, DuplicatesAndImplausibleValuesAreRefused) {
  const std::string emu = "emulated: {W_cpu: 60, W_mem: 2000, T_io: 5, mem_gbs: 50}\n";
  EXPECT_EQ(error_of(emu + "knobs:\n  cpu_ghz: [1.2, 1.2]\n"),
            "bad.yaml:3: knobs.cpu_ghz[1]: duplicate value 1.2 (same as knobs.cpu_ghz[0]); each point must differ");
  // Same label (cpu1) or same kHz: still one point.
  EXPECT_EQ(error_of(emu + "knobs:\n  cpu_ghz: [1.0, 1.0000001]\n"),
            "bad.yaml:3: knobs.cpu_ghz[1]: duplicate value 1.0000001 (same as knobs.cpu_ghz[0]); each point must differ");
  EXPECT_EQ(error_of("job: {command: [a]}\nknobs:\n  uncore_ghz: [1.5, {min: 1.5, max: 1.5}]\n"),
            "bad.yaml:3: knobs.uncore_ghz[1]: duplicate setting (same as knobs.uncore_ghz[0]); each point must differ");
  // yaml-cpp keeps both entries of a repeated key; the second would be silently ignored.
  EXPECT_EQ(error_of("emulated:\n  W_cpu: 60\n  W_mem: 2000\n  T_io: 5\n  mem_gbs: 50\n  seed: 1\n  seed: 2\n"
                     "knobs: {cpu_ghz: [1]}\n"),
            "bad.yaml:7: emulated.seed: duplicate key (it is already given above in this mapping)");
  EXPECT_EQ(error_of("job: {command: [a]}\nseed: 1\nrepetitions: 2\nseed: 3\n"),
            "bad.yaml:4: seed: duplicate key (it is already given above in this mapping)");
  EXPECT_EQ(error_of("job: {command: [a]}\nknobs:\n  memory:\n    - {name: a, name: b}\n"),
            "bad.yaml:4: knobs.memory[0].name: duplicate key (it is already given above in this mapping)");
  EXPECT_EQ(error_of(emu + "knobs: {cpu_ghz: [1]}\nrepetitions: 100000000\n"),
            "bad.yaml:3: repetitions: must be <= 1000, got 100000000");
  EXPECT_EQ(error_of(emu + "knobs:\n  cpu_ghz: [1, 2, 3, 4, 5, 6, 7, 8, 9, 9.5]\n  memory:\n" +
                     [] {
                       std::string m;
                       for (int i = 0; i < 11; ++i)
                         m += "    - {name: m" + std::to_string(i) + ", emulated_gbs: 10}\n";
                       return m;
                     }() + "repetitions: 1000\n"),
            "bad.yaml:16: repetitions: 110 points x 1000 repetitions = 110000 runs, more than the limit of 100000");
  EXPECT_EQ(error_of(emu + "knobs: {cpu_ghz: [1e-300]}\n"),
            "bad.yaml:2: knobs.cpu_ghz[0]: must be within [0.1, 10] GHz, got 1e-300");
  EXPECT_EQ(error_of("job: {command: [a]}\nknobs: {uncore_ghz: [0.01]}\n"),
            "bad.yaml:2: knobs.uncore_ghz[0]: must be within [0.1, 10] GHz, got 0.01");
  EXPECT_EQ(error_of("emulated: {W_cpu: 60, W_mem: 2000, T_io: 5, mem_gbs: 50, noise_pct: 500}\nknobs: {cpu_ghz: [1]}\n"),
            "bad.yaml:1: emulated.noise_pct: must be within [0, 50] percent, got 500");
  EXPECT_EQ(error_of("emulated: {W_cpu: 1e300, W_mem: 2000, T_io: 5, mem_gbs: 50}\nknobs: {cpu_ghz: [1]}\n"),
            "bad.yaml:1: emulated.W_cpu: must be within [0, 1e+09] giga-cycles, got 1e300");
  EXPECT_EQ(error_of("emulated: {W_cpu: 6, W_mem: 2000, T_io: 5, mem_gbs: 1e-9}\nknobs: {cpu_ghz: [1]}\n"),
            "bad.yaml:1: emulated.mem_gbs: must be within [0.1, 100000] GB/s, got 1e-9");
  EXPECT_EQ(error_of("emulated: {W_cpu: 6, W_mem: 2, T_io: 5}\nknobs:\n  cpu_ghz: [1]\n  memory:\n"
                     "    - {name: a, emulated_gbs: 1e12}\n"),
            "bad.yaml:5: knobs.memory[0].emulated_gbs: must be within [0.1, 100000] GB/s, got 1e12");
  // The bounds themselves are accepted.
  EXPECT_NO_THROW(parse_spec_text(emu + "knobs: {cpu_ghz: [0.1, 10]}\nrepetitions: 1000\n", "ok.yaml"));
}

TEST(SweepSpec, EmulatedNeedsTruthAndRates) {
  EXPECT_EQ(error_of("emulated: {W_cpu: 1, W_mem: 1}\nknobs: {cpu_ghz: [1]}\n"),
            "bad.yaml:1: emulated.T_io: missing (the ground-truth model needs W_cpu, W_mem, T_io)");
  EXPECT_EQ(error_of("emulated: {W_cpu: 1, W_mem: 1, T_io: 0, overlap: 2}\nknobs: {cpu_ghz: [1]}\n"),
            "bad.yaml:1: emulated.overlap: must be within [0, 1]");
  EXPECT_EQ(error_of("emulated: {W_cpu: 1, W_mem: 1, T_io: 0}\nknobs:\n  cpu_ghz: [1]\n  memory:\n    - {name: a}\n"),
            "bad.yaml:5: knobs.memory[0].emulated_gbs: missing (the emulated launcher needs each configuration's "
            "bandwidth)");
  EXPECT_EQ(error_of("emulated: {W_cpu: 1, W_mem: 1, T_io: 0}\nknobs:\n  cpu_ghz: [1]\n"),
            "bad.yaml:1: emulated.mem_gbs: missing: give emulated.mem_gbs or memory configurations with emulated_gbs");
  const auto s = parse_spec_text("emulated: {W_cpu: 10, W_mem: 20, T_io: 1, mem_gbs: 50, noise_pct: 2}\n"
                                 "knobs: {cpu_ghz: [1, 2]}\n", "e.yaml");
  ASSERT_TRUE(s.emulation);
  EXPECT_EQ(s.emulation->w_mem, 20);
  EXPECT_TRUE(s.command.empty());
}

TEST(SweepSpec, ResctrlMemoryBandwidthAndItsRules) {
  const auto s = parse_spec_text("job: {command: [mpirun, -np, '4', ./app]}\nknobs:\n  memory_backend: resctrl\n"
                                 "  mem_bw: [100, 50, 20]\n  cpu_ghz: [1.2, 2.0]\nbackends: {resctrl_root: /r}\n", "r.yaml");
  EXPECT_TRUE(s.memory_resctrl);
  EXPECT_EQ(s.mem_bw, (std::vector<long>{100, 50, 20}));
  EXPECT_EQ(resctrl_root_of(s), "/r");
  EXPECT_EQ(resctrl_root_of(parse_spec_text("job: {command: [./a]}\n", "d.yaml")), "/sys/fs/resctrl");
  const std::string job = "job: {command: [mpirun, ./app]}\n";
  EXPECT_NE(error_of(job + "knobs: {mem_bw: [50]}\n").find("bad.yaml:2: knobs.mem_bw: needs knobs.memory_backend: resctrl"),
            std::string::npos) << error_of(job + "knobs: {mem_bw: [50]}\n");
  EXPECT_NE(error_of(job + "knobs: {memory_backend: resctrl}\n").find("knobs.mem_bw: missing"), std::string::npos);
  EXPECT_NE(error_of(job + "knobs: {memory_backend: rdt, mem_bw: [5]}\n").find("must be declared or resctrl"), std::string::npos);
  EXPECT_NE(error_of(job + "knobs: {memory_backend: resctrl, mem_bw: [50, 50]}\n").find("knobs.mem_bw[1]: duplicate"),
            std::string::npos);
  EXPECT_NE(error_of(job + "knobs: {memory_backend: resctrl, mem_bw: [4294967296]}\n").find("knobs.mem_bw[0]"), std::string::npos);
  EXPECT_NE(error_of("job: {command: [srun, ./app]}\nknobs: {memory_backend: resctrl, mem_bw: [50]}\n")
                .find("srun's tasks are started by slurmstepd"), std::string::npos);
  EXPECT_NE(error_of(job + "knobs: {memory_backend: resctrl, mem_bw: [50]}\ncalibration: {stream: false}\n")
                .find("needs calibration.stream: on"), std::string::npos);
  EXPECT_NE(error_of(job + "knobs: {memory_backend: resctrl, mem_bw: [50], memory: [{name: a}]}\n")
                .find("does not combine with declared knobs.memory"), std::string::npos);
}

TEST(SweepSpec, MissingFileIsAnInputError) {
  EXPECT_THROW(parse_spec_file("/nonexistent/spec.yaml"), InputError);
}

}  // namespace
}  // namespace hpcsens::sweep

namespace hpcsens::sweep {
namespace {

TEST(SweepSpec, ShippedExamplesParse) {
  for (const char* name : {"emulated.yaml", "cpufreq.yaml", "slurm.yaml"}) {
    const auto s = parse_spec_file(std::string(HPCSENS_SOURCE_DIR) + "/examples/sweeps/" + name);
    EXPECT_FALSE(s.command.empty()) << name;
  }
  const auto e = parse_spec_file(std::string(HPCSENS_SOURCE_DIR) + "/examples/sweeps/emulated.yaml");
  ASSERT_TRUE(e.emulation);
  EXPECT_EQ(e.cpu_ghz.size() * e.memory.size(), 12u);
  EXPECT_EQ(e.repetitions, 3);
}

}  // namespace
}  // namespace hpcsens::sweep
