#pragma once
// A real mpirun with the preload in a fresh directory, for the counter agent's tests: stdout
// and stderr kept apart, the run record and what the program printed read back. Every process is
// bounded by `timeout`.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace hpcsens::test {

class MpirunFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/hpcsens-agent-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // mpirun -np NP under a 60 s timeout running `program` (with its arguments). Exit status.
  int mpirun_np(int np, const std::string& preload, const std::string& extra, const std::string& program) {
    const std::string cmd = std::string("timeout -k 5 60 ") + HPCSENS_MPIRUN + " -np " + std::to_string(np) +
                            " --oversubscribe" + (preload.empty() ? "" : " -x LD_PRELOAD=" + preload) +
                            " -x HPCSENS_OUT=" + dir_ + " -x HPCSENS_RUN_ID=r1 " + extra + " " + program +
                            " > " + dir_ + "/out 2> " + dir_ + "/err";
    const int st = std::system(cmd.c_str());
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  }
  std::string file(const std::string& name) const {
    std::ifstream in(dir_ + "/" + name);
    return std::string((std::istreambuf_iterator<char>(in)), {});
  }
  // The record is "r1.<16 hex>.json" (docs/record-format.md, "File names").
  nlohmann::json record() const {
    for (const auto& e : std::filesystem::directory_iterator(dir_)) {
      const std::string n = e.path().filename().string();
      if (n.starts_with("r1.") && n.ends_with(".json") && n.size() == std::string("r1.0123456789abcdef.json").size())
        return nlohmann::json::parse(file(n));
    }
    return nlohmann::json::parse(file("r1.json"));  // fails the test, naming the missing file
  }

  std::string dir_;
};

}  // namespace hpcsens::test
