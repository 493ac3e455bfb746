// The real binary on this machine: `hpcsens doctor`, and `hpcsens run --events topdown` around a
// real 2-rank mpirun. The CPU identity is injected ($HPCSENS_CPU_ROOT, a fake /proc/cpuinfo) so
// no expectation depends on this host's CPU model or PMU: a table-less CPU is unavailable by its
// table, and a CPU of the other instruction set has events no PMU here knows, so they are refused
// on any machine. Every command runs under a timeout so a hang fails the test, not the suite.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "record/run_record.h"
#include "tests/integration/process.h"
#include "tests/common/report_text.h"

namespace fs = std::filesystem;

namespace {

// stdout and stderr together, as a user sees them; a hang fails the test, not the suite.
struct Result {
  int status = -1;
  std::string out;
};

Result run(const std::string& cmd) {
  // Open MPI refuses root without these (ctest sets them too; direct runs need them here).
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  const auto r = hpcsens::testing::run_words(cmd, 60);
  return {r.exit_status, r.out + r.err};
}

// A directory standing in for / with the given /proc/cpuinfo, exported as $HPCSENS_CPU_ROOT for
// the commands this test starts (and, through mpirun -x, for the ranks and their agents).
class InjectedCpu {
 public:
  InjectedCpu(const std::string& name, const std::string& cpuinfo)
      : root_(fs::temp_directory_path() / ("hpcsens_cpu_" + name + "_" + std::to_string(::getpid()))) {
    fs::remove_all(root_);
    fs::create_directories(root_ / "proc");
    std::ofstream(root_ / "proc/cpuinfo") << cpuinfo;
    ::setenv("HPCSENS_CPU_ROOT", root_.c_str(), 1);
  }
  ~InjectedCpu() {
    ::unsetenv("HPCSENS_CPU_ROOT");
    fs::remove_all(root_);
  }
  std::string path() const { return root_.string(); }

 private:
  fs::path root_;
};

std::string x86_cpuinfo(const std::string& vendor, int family, int model) {
  return "processor\t: 0\nvendor_id\t: " + vendor + "\ncpu family\t: " + std::to_string(family) +
         "\nmodel\t\t: " + std::to_string(model) + "\nflags\t\t: fpu tsc hypervisor\n\n";
}
std::string arm_cpuinfo(int part) {
  return "processor\t: 0\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU part\t: " +
         std::to_string(part) + "\n\n";
}

// A CPU with a Top-Down table whose events this build's libpfm4 cannot know: an Arm Neoverse V1
// on x86 builds, an Intel Skylake-SP elsewhere. PAPI refuses them with or without a PMU.
std::string foreign_cpuinfo() {
#if defined(__x86_64__) || defined(__i386__)
  return arm_cpuinfo(0xd40);
#else
  return x86_cpuinfo("GenuineIntel", 6, 0x55);
#endif
}

bool has_pmu() {
  // The doctor's own verdict on this machine's PMU (hardware events do not depend on the
  // injected identity; only the fix text does).
  return run(std::string(HPCSENS_BIN) + " doctor").out.find("[ok     ] hardware events") != std::string::npos;
}

// Every *.json record (not a partial) in `dir`.
std::vector<fs::path> records_in(const fs::path& dir) {
  std::vector<fs::path> records;
  if (fs::exists(dir))
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().extension() == ".json" && e.path().string().find(".partial") == std::string::npos)
        records.push_back(e.path());
  return records;
}

// `hpcsens run --events topdown` around the 2-rank probe; checks that the job and the record are
// intact and returns the record's counters_status ("" when the record is missing).
std::string run_topdown_expecting_intact_job(const std::string& tag) {
  const fs::path out = fs::temp_directory_path() / ("hpcsens_td_run_" + tag + "_" + std::to_string(::getpid()));
  fs::remove_all(out);
  const Result r = run(std::string(HPCSENS_BIN) + " run --out " + out.string() + " --events topdown -- " + MPIRUN +
                       " -np 2 --oversubscribe -x HPCSENS_CPU_ROOT " + TOPDOWN_MPI_PROBE);
  EXPECT_EQ(r.status, 0) << r.out;  // the job's exit status, not a counter problem
  EXPECT_NE(r.out.find("Top-Down unavailable"), std::string::npos) << r.out;
  const auto records = records_in(out);
  EXPECT_EQ(records.size(), 1u) << r.out;
  if (records.size() != 1) return "";
  const auto rec = hpcsens::record::load_run_record(records[0].string());
  EXPECT_NE(rec.counters_status, "ok");
  EXPECT_EQ(rec.ranks.size(), 2u);
  for (const auto& rk : rec.ranks) {
    EXPECT_EQ(rk.event_set.rfind("topdown", 0), 0u) << rk.event_set;
    EXPECT_GT(rk.wall_s, 0.0);
    EXPECT_TRUE(rk.complete);
    EXPECT_EQ(rk.mpi_calls.count("MPI_Allreduce"), 1u);
    if (rk.mpi_calls.count("MPI_Allreduce")) {
      EXPECT_EQ(rk.mpi_calls.at("MPI_Allreduce").count, 1u);
    }
  }
  EXPECT_GT(rec.timing.job_s, 0.0);
  EXPECT_EQ(rec.job.nranks, 2);

  // The report says the same, in one line, and still exits 0.
  const Result rep = run(std::string(HPCSENS_BIN) + " report " + records[0].string());
  EXPECT_EQ(rep.status, 0) << rep.out;
  EXPECT_NE(rep.out.find("Top-Down unavailable"), std::string::npos) << rep.out;
  fs::remove_all(out);
  return rec.counters_status;
}

}  // namespace

TEST(DoctorCli, ReportsPapiAndMissingCapabilitiesWithExitZero) {
  // A Skylake-SP guest: the fix for missing hardware events is then the VM one on any host.
  const InjectedCpu cpu("skx_vm", x86_cpuinfo("GenuineIntel", 6, 0x55));
  const Result r = run(std::string(HPCSENS_BIN) + " doctor");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("PAPI 7.0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Open MPI"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("perf_event_paranoid = "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Top-Down set"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("libhpcsens_preload.so"), std::string::npos) << r.out;
  if (!has_pmu()) {
    EXPECT_NE(r.out.find("hardware events unavailable"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("fix: VM: enable PMU passthrough"), std::string::npos) << r.out;
    // The Top-Down set cannot be "ok" where its events cannot be counted.
    EXPECT_NE(r.out.find("[missing] Top-Down set"), std::string::npos) << r.out;
  } else {
    EXPECT_NE(r.out.find("[ok     ] Top-Down set"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("topdown-skx: Intel Skylake"), std::string::npos) << r.out;
  }
  EXPECT_NE(r.out.find("[CPU identity injected by HPCSENS_CPU_ROOT=" + cpu.path()), std::string::npos) << r.out;
  if (!fs::exists("/sys/devices/system/cpu/cpu0/cpufreq")) {
    EXPECT_NE(r.out.find("[missing] cpufreq"), std::string::npos) << r.out;
  }
}

TEST(DoctorCli, JsonFormat) {
  const Result r = run(std::string(HPCSENS_BIN) + " doctor --format json");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("schema"), "hpcsens.doctor.v1");
  EXPECT_FALSE(j.at("broken").get<bool>());
  bool papi = false;
  for (const auto& c : j.at("checks"))
    if (c.at("name") == "PAPI") papi = c.at("detail").get<std::string>().rfind("PAPI 7.", 0) == 0;
  EXPECT_TRUE(papi) << r.out;
  EXPECT_EQ(run(std::string(HPCSENS_BIN) + " doctor --format yaml").status, 2);
}

// CPUs without a table (Zen 1/2, Intel before Skylake, Arm cores other than Neoverse N1/V1/V2) are
// named as such by the doctor, whatever this machine is.
TEST(DoctorCli, TablelessCpusAreMissingWithTheirReason) {
  const struct {
    const char* name;
    std::string cpuinfo;
    const char* reason;
  } cases[] = {
      {"zen1", x86_cpuinfo("AuthenticAMD", 0x17, 0x01), "AMD family 0x17 model 0x1: no Top-Down table (Zen 2 and older"},
      {"zen2", x86_cpuinfo("AuthenticAMD", 0x17, 0x31), "AMD family 0x17 model 0x31: no Top-Down table (Zen 2 and older"},
      {"broadwell", x86_cpuinfo("GenuineIntel", 6, 0x4F), "Intel family 6 model 0x4f: no Top-Down table for this model"},
      {"a72", arm_cpuinfo(0xd08), "Arm implementer 0x41 part 0xd08: no Top-Down table for this core"},
  };
  for (const auto& c : cases) {
    const InjectedCpu cpu(c.name, c.cpuinfo);
    const Result r = run(std::string(HPCSENS_BIN) + " doctor");
    EXPECT_EQ(r.status, 0) << c.name << "\n" << r.out;
    EXPECT_NE(r.out.find("[missing] Top-Down set"), std::string::npos) << c.name << "\n" << r.out;
    EXPECT_NE(r.out.find(c.reason), std::string::npos) << c.name << "\n" << r.out;
  }
}

// The failure of a fresh AMD family 0x17 VM: a table-less CPU's record names the missing table,
// not a refused event, and the job and its record stay intact.
TEST(RunTopdown, TablelessCpuUnavailableWithReasonJobAndRecordIntact) {
  const InjectedCpu cpu("zen2", x86_cpuinfo("AuthenticAMD", 0x17, 0x31));
  const std::string status = run_topdown_expecting_intact_job("zen2");
  EXPECT_NE(status.find("Top-Down unavailable: AMD family 0x17 model 0x31: no Top-Down table (Zen 2 and older have "
                        "no slot events)"),
            std::string::npos)
      << status;
  EXPECT_NE(status.find("injected by HPCSENS_CPU_ROOT"), std::string::npos) << status;
}

// A CPU with a table whose events PAPI refuses: the reason names the refused event. Where PAPI
// has no perf_event component at all (seen on a 16-core Xeon VM whose CPU libpfm4 does not
// know), that is the reason, named with this machine's CPU, not the injected one.
TEST(RunTopdown, UnavailableWithReasonJobAndRecordIntact) {
  const bool papi_off =
      run(std::string(HPCSENS_BIN) + " doctor").out.find("perf_event component is disabled") != std::string::npos;
  const InjectedCpu cpu("foreign", foreign_cpuinfo());
  const std::string status = run_topdown_expecting_intact_job("foreign");
  EXPECT_EQ(status.rfind("Top-Down unavailable: ", 0), 0u) << status;
  if (papi_off) {
    EXPECT_NE(status.find("PAPI's perf_event component is disabled"), std::string::npos) << status;
    EXPECT_EQ(status.find("Arm implementer"), std::string::npos) << status;
    return;
  }
  EXPECT_NE(status.find(" not supported"), std::string::npos) << status;
  EXPECT_NE(status.find("need not have that CPU's events"), std::string::npos) << status;
}

// What a 16-core Xeon VM showed: PAPI had switched its perf_event component off (libpfm4 knew no
// core PMU there), so even perf::TASK-CLOCK was refused. libpfm4's own LIBPFM_FORCE_PMU=perf
// (only the OS's generic PMU, no core PMU) puts the real PAPI in the same state on any machine.
class NoDefaultPmu {
 public:
  NoDefaultPmu() { ::setenv("LIBPFM_FORCE_PMU", "perf", 1); }
  ~NoDefaultPmu() { ::unsetenv("LIBPFM_FORCE_PMU"); }
};

constexpr char kNoDefaultPmu[] = "PAPI's perf_event component is disabled (Error libpfm4 no default PMU found)";

TEST(DoctorCli, PapiWithoutADefaultPmuIsNamedWithItsFix) {
  const NoDefaultPmu env;
  const Result r = run(std::string(HPCSENS_BIN) + " doctor");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find(std::string("[missing] software events      perf::TASK-CLOCK cannot be counted: ") + kNoDefaultPmu +
                       ": libpfm4 recognises no core PMU on this CPU ("),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("fix: run with --events none"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("CONFIG_PERF_EVENTS"), std::string::npos) << r.out;
  // libpfm4 looked at this machine's CPU: an identity injected for the Top-Down plan is not it.
  const InjectedCpu cpu("nopmu", x86_cpuinfo("GenuineIntel", 6, 0x55));
  const Result injected = run(std::string(HPCSENS_BIN) + " doctor");
  EXPECT_EQ(injected.out.find("no core PMU on this CPU (Intel family 6 model 0x55)"), std::string::npos) << injected.out;
}

TEST(RunCounters, PapiWithoutADefaultPmuLeavesTheJobAloneAndSaysWhy) {
  const NoDefaultPmu env;
  const fs::path out = fs::temp_directory_path() / ("hpcsens_nopmu_" + std::to_string(::getpid()));
  fs::remove_all(out);
  const Result r = run(std::string(HPCSENS_BIN) + " run --out " + out.string() + " -- " + MPIRUN +
                       " -np 2 --oversubscribe " + TOPDOWN_MPI_PROBE);
  EXPECT_EQ(r.status, 0) << r.out;
  const auto records = records_in(out);
  ASSERT_EQ(records.size(), 1u) << r.out;
  const auto rec = hpcsens::record::load_run_record(records[0].string());
  EXPECT_EQ(rec.counters_status.rfind(std::string("counters unavailable: ") + kNoDefaultPmu, 0), 0u) << rec.counters_status;
  EXPECT_EQ(rec.ranks.size(), 2u);
  for (const auto& rk : rec.ranks) EXPECT_TRUE(rk.complete);
  // One warning for the job, in the same words.
  EXPECT_NE(r.out.find(std::string("warning: counters: counters unavailable: ") + kNoDefaultPmu), std::string::npos) << r.out;
  // The running fraction is not known, and the record and the report say why (once, for the run).
  for (const auto& rk : rec.ranks) {
    EXPECT_TRUE(rk.counter_running_fraction.empty());
    EXPECT_EQ(rk.counter_running_fraction_reason, "no counters: " + rk.counters_status);
  }
  const Result report = run(std::string(HPCSENS_BIN) + " report " + records[0].string());
  EXPECT_EQ(report.status, 0) << report.out;
  const std::string text = hpcsens::testing::unwrapped(report.out);  // the report wraps at 120 columns
  const std::string said = "Counter running fraction: not known on 2 of 2 ranks: no counters: counters unavailable: ";
  EXPECT_NE(text.find(said + kNoDefaultPmu), std::string::npos) << report.out;
  EXPECT_EQ(text.find(said), text.rfind(said)) << "said once: " << report.out;
  fs::remove_all(out);
}
