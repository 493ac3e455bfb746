#pragma once
// The fixture of the issue-11 mpirun tests: a private directory, mpirun under the preload with
// every process bounded by `timeout`, the run's log and record.
#include <sys/wait.h>

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
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    char tmpl[] = "/tmp/hpcsens-measure-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Runs `cmd` under `timeout` with output in the log; returns the exit status.
  int sh(const std::string& cmd) {
    const std::string bound = "timeout -k 5 " + std::to_string(timeout_s_) + " ";
    const int st = std::system((bound + cmd + " > " + dir_ + "/log 2>&1").c_str());
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  }
  int mpirun(int np, const std::string& prog, bool preload = true, const std::string& extra = "",
             const std::string& out = "") {
    std::string x = preload ? std::string(" -x LD_PRELOAD=") + HPCSENS_PRELOAD_LIB +
                                  " -x HPCSENS_OUT=" + (out.empty() ? dir_ : out) +
                                  " -x HPCSENS_RUN_ID=m1 " + extra
                            : "";
    return sh(std::string(HPCSENS_MPIRUN) + " -np " + std::to_string(np) + " --oversubscribe" +
              x + " " + prog + " " + dir_);
  }
  std::string log() const {
    std::ifstream in(dir_ + "/log");
    return std::string((std::istreambuf_iterator<char>(in)), {});
  }
  nlohmann::json record() const {
    std::ifstream in(run_file(dir_, "m1", ".json"));
    return nlohmann::json::parse(in);
  }
  // The path of "<stem>.<16 hex>.<suffix>" in dir (a run's files get a random part when written:
  // docs/record-format.md, "File names"), or "" when there is none.
  static std::string run_file(const std::string& dir, const std::string& stem, const std::string& suffix) {
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
      const std::string n = e.path().filename().string();
      if (n.size() == stem.size() + 17 + suffix.size() && n.starts_with(stem + ".") && n.ends_with(suffix) &&
          n.find_first_not_of("0123456789abcdef", stem.size() + 1) == stem.size() + 17)
        return e.path().string();
    }
    return "";
  }
  std::string dir_;
  int timeout_s_ = 90;  // seconds per command, a bound against hangs
};

inline std::uint64_t u(const nlohmann::json& j, const char* a, const char* b) {
  return j.at(a).at(b).get<std::uint64_t>();
}

}  // namespace hpcsens::test
