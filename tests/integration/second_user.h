#pragma once
// A second, unprivileged user for attack tests, created by the test with a unique name
// (hpcsens_t_<pid>) and removed afterwards; commands run as that user through runuser.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "process.h"
#include "run_fixture.h"

namespace hpcsens::testing {

inline int sh(const std::string& command) { return run_process({"/bin/sh", "-c", command}, 60).exit_status; }

class SecondUser : public HpcsensRunTest {
 protected:
  void SetUp() override {
    HpcsensRunTest::SetUp();
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to add a user";
    user_ = "hpcsens_t_" + std::to_string(::getpid() % 1000000);
    ASSERT_EQ(sh("useradd -M -N -s /bin/false " + user_), 0);
    uid_ = std::stoi(run_process({"id", "-u", user_}, 10).out);
  }
  void TearDown() override {
    if (!user_.empty()) {
      stop_racers();
      sh("userdel -f " + user_);
    }
    std::filesystem::remove(stop_file());
    HpcsensRunTest::TearDown();
  }
  // Runs a shell command as the second user (no quotes inside `command`: it is single-quoted).
  int as_user(const std::string& command) { return sh("runuser -u " + user_ + " -- /bin/sh -c '" + command + "'"); }
  // A racer: `step` repeated as the second user in the background until stop_racers() (or 60 s).
  void race(const std::string& step) {
    sh("runuser -u " + user_ + " -- /bin/sh -c 'end=$(($(date +%s)+60)); while [ ! -e " + stop_file() +
       " ] && [ $(date +%s) -lt $end ]; do " + step + "; done' >/dev/null 2>&1 &");
  }
  void stop_racers() {
    sh("touch " + stop_file() + " && sleep 0.3");
  }
  std::string stop_file() const { return out_.string() + "-stop"; }
  std::string user_;
  int uid_ = -1;
};

}  // namespace hpcsens::testing
