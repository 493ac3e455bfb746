#pragma once
// A job under `hpcsens run -- mpirun` whose node counter agent loads the PAPI TEST DOUBLE
// (fake_papi.c) instead of PAPI: its script, its log, the record, the report's CSV tables. Every
// counter value such a job records is the double's script, never a measurement.
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/integration/process.h"

namespace hpcsens::test {

namespace fs = std::filesystem;

struct Job {
  int status = -1;
  std::string out, err, log;
  nlohmann::json record;
  std::string record_path;
};

// One scripted event: the value rank r reads is base + per_rank * r.
struct Scripted {
  std::string name;
  long long base, per_rank;
  long long at(int rank) const { return base + per_rank * rank; }
};

inline std::string script_lines(const std::vector<Scripted>& events) {
  std::string s = "# hpcsens PAPI test double script: values are scripted, not measured\n";
  for (const auto& e : events)
    s += "event " + e.name + " " + std::to_string(e.base) + " " + std::to_string(e.per_rank) + "\n";
  return s;
}

class PapiDoubleMpirun : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/hpcsens-papi-double-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  }
  void TearDown() override {
    ::unsetenv("HPCSENS_CPU_ROOT");
    fs::remove_all(dir_);
  }

  // An AMD family 0x19 CPU identity injected for the plans ($HPCSENS_CPU_ROOT; jobs pass it to the
  // ranks with -x HPCSENS_CPU_ROOT), so Top-Down picks that table on any machine.
  void inject_amd_cpu(int model) {
    fs::create_directories(dir_ + "/cpu/proc");
    std::ofstream(dir_ + "/cpu/proc/cpuinfo") << "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: "
                                              << model << "\nflags\t\t: fpu tsc\n\n";
    ::setenv("HPCSENS_CPU_ROOT", (dir_ + "/cpu").c_str(), 1);
  }

  std::string read(const std::string& path) const {
    std::ifstream in(path);
    return std::string((std::istreambuf_iterator<char>(in)), {});
  }

  // `hpcsens run [hpcsens_args] -- mpirun -np NP ... prog EXIT` with the double in place of PAPI.
  Job run_job(const std::string& script, int np, int exit_code, const std::string& hpcsens_args = "",
              const std::string& mpirun_args = "") {
    std::ofstream(dir_ + "/script") << script;
    const std::string out = dir_ + "/out";
    const std::string cmd = std::string(HPCSENS_BIN) + " run --out " + out + " " + hpcsens_args + " -- " + MPIRUN +
                            " -np " + std::to_string(np) + " --oversubscribe -x LD_LIBRARY_PATH=" + PAPI_DOUBLE_DIR +
                            " -x HPCSENS_PAPI_DOUBLE_SCRIPT=" + dir_ + "/script -x HPCSENS_PAPI_DOUBLE_LOG=" + dir_ +
                            "/log " + mpirun_args + " " + PAPI_DOUBLE_PROG + " " + std::to_string(exit_code);
    const auto r = hpcsens::testing::run_words(cmd, 120);
    Job job{r.exit_status, r.out, r.err, read(dir_ + "/log"), nullptr, ""};
    if (fs::exists(out))
      for (const auto& e : fs::directory_iterator(out))
        if (e.path().extension() == ".json" && e.path().string().find(".partial") == std::string::npos)
          job.record_path = e.path().string();
    if (!job.record_path.empty()) job.record = nlohmann::json::parse(read(job.record_path));
    return job;
  }

  // `hpcsens report --format csv --table TABLE`: rows keyed by rank, then by column header.
  std::vector<std::map<std::string, std::string>> csv(const Job& job, const std::string& table) const {
    const auto r = hpcsens::testing::run_words(
        std::string(HPCSENS_BIN) + " report --format csv --table " + table + " " + job.record_path, 60);
    EXPECT_EQ(r.exit_status, 0) << r.err;
    std::vector<std::map<std::string, std::string>> rows;
    std::istringstream in(r.out);
    std::string line;
    std::vector<std::string> header;
    while (std::getline(in, line)) {
      std::vector<std::string> cells;
      std::stringstream fields(line);
      for (std::string c; std::getline(fields, c, ',');) cells.push_back(c);  // no quoted commas here
      if (header.empty()) {
        header = cells;
        continue;
      }
      std::map<std::string, std::string> row;
      for (size_t i = 0; i < header.size() && i < cells.size(); ++i) row[header[i]] = cells[i];
      rows.push_back(row);
    }
    return rows;
  }

  // The program's own output: one line per rank, whatever the counters did.
  static void expect_job_untouched(const Job& job, int np, int exit_code) {
    EXPECT_EQ(job.status, exit_code) << job.err;
    const long sum = static_cast<long>(np) * (np + 1) / 2;
    for (int r = 0; r < np; ++r)
      EXPECT_NE(job.out.find("rank " + std::to_string(r) + " of " + std::to_string(np) + " sum " + std::to_string(sum) + "\n"),
                std::string::npos) << job.out;
    EXPECT_EQ(static_cast<int>(std::count(job.out.begin(), job.out.end(), '\n')), np) << job.out;
  }

  // The agent kept PAPI's rules and released every event set (the double logs both).
  static void expect_papi_rules_kept(const Job& job) {
    EXPECT_EQ(job.log.find("MISUSE"), std::string::npos) << job.log;
    EXPECT_EQ(job.log.find("LEAK"), std::string::npos) << job.log;
    // The leak check ran: the agent ended normally (a process killed outright checks nothing).
    EXPECT_NE(job.log.find(": EXIT 0 event sets held"), std::string::npos) << job.log;
    EXPECT_EQ(job.log.find("SCRIPT ERROR"), std::string::npos) << job.log;
  }

  std::string dir_;
};

}  // namespace hpcsens::test
