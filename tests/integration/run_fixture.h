#pragma once
// Base fixture for tests that run jobs through the real `hpcsens run`: each test gets its own
// output directory (kept when the test fails, for a look at the record), every job is bounded by
// a timeout, and the record is found where hpcsens said it wrote it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "process.h"

namespace hpcsens::testing {

class HpcsensRunTest : public ::testing::Test {
 protected:
  // A safety net against a hang, not a time target: at load 12 on 2 cores a 2-rank job whose
  // ranks spin (the network-delay knob) took over 60 s.
  static constexpr double kTimeout = 300;

  HpcsensRunTest() {
    // Open MPI refuses root without these; set here too so the binary also runs outside ctest.
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  }
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    out_ = std::filesystem::temp_directory_path() /
           ("hpcsens-" + std::string(info->test_suite_name()) + "-" + std::to_string(::getpid()) + "-" +
            info->name());
    std::filesystem::remove_all(out_);
  }
  void TearDown() override {
    if (!HasFailure()) std::filesystem::remove_all(out_);
  }

  // `hpcsens run [opts] -- job...`, into out_ unless opts name another --out.
  ProcessResult wrap(const std::vector<std::string>& job, std::vector<std::string> opts = {}) const {
    std::vector<std::string> v = {HPCSENS_BIN, "run"};
    if (std::find(opts.begin(), opts.end(), "--out") == opts.end()) opts.insert(opts.begin(), {"--out", out_.string()});
    v.insert(v.end(), opts.begin(), opts.end());
    v.push_back("--");
    v.insert(v.end(), job.begin(), job.end());
    return run_process(v, kTimeout);
  }

  // The record path hpcsens printed on stderr (it must say where the record is), or "".
  static std::string record_path(const ProcessResult& r) {
    std::smatch m;
    static const std::regex re("hpcsens: record: (\\S+)");
    return std::regex_search(r.err, m, re) ? m[1].str() : std::string();
  }

  nlohmann::json record(const ProcessResult& r) const {
    const std::string p = record_path(r);
    if (p.empty()) {
      ADD_FAILURE() << "no record path on stderr:\n" << r.err;
      return nlohmann::json::object();
    }
    EXPECT_EQ(std::filesystem::path(p).parent_path(), out_) << "the record belongs under --out";
    std::ifstream in(p);
    return nlohmann::json::parse(in);
  }

  // Every rank made exactly these MPI calls (and no other intercepted ones).
  static void expect_calls(const nlohmann::json& rec, const std::map<std::string, std::uint64_t>& want) {
    for (const auto& rank : rec.at("ranks")) {
      std::map<std::string, std::uint64_t> got;
      for (const auto& [name, s] : rank.at("mpi_calls").items()) got[name] = s.at("count");
      EXPECT_EQ(got, want) << "rank " << rank.at("rank");
    }
  }

  // stdout through the wrapper is byte-identical to a run without it.
  static void expect_same_stdout(const std::vector<std::string>& job, const ProcessResult& wrapped) {
    const auto direct = run_process(job, kTimeout);
    ASSERT_EQ(direct.exit_status, wrapped.exit_status);
    EXPECT_EQ(wrapped.out, direct.out);
    EXPECT_FALSE(direct.out.empty());
  }

  std::filesystem::path out_;
};

}  // namespace hpcsens::testing
