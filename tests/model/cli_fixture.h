#pragma once
// Fixture for tests of the real `hpcsens fit/predict` binary: a private directory of input files
// and a process runner with a time limit (a hang fails the test instead of the suite).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/integration/process.h"
#include "tests/model/ground_truth.h"

namespace hpcsens::model {

namespace fs = std::filesystem;

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("hpcsens_cli_model_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string file(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // Runs the binary with a time limit so a hang fails the test instead of the suite.
  static hpcsens::testing::ProcessResult run(const std::string& args) {
    return hpcsens::testing::run_words(std::string(HPCSENS_BIN) + " " + args, 60);
  }

  std::string good_csv(const testing::Truth& truth, const std::string& name = "good.csv") {
    std::string text = "label,cpu_ghz,mem_gbs,time_s\n";
    for (const auto& p : testing::generate_points(truth, testing::acceptance_grid(), {0.01, 4, 1}))
      text += p.label + "," + std::to_string(p.cpu_ghz) + "," + std::to_string(p.mem_gbs) + "," +
              std::to_string(p.time_s) + "\n";
    return file(name, text);
  }

  fs::path dir_;
};


}  // namespace hpcsens::model
