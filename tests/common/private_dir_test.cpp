// The private directory for files handed to other programs, attacked by a second user: a user
// without a runtime directory ($XDG_RUNTIME_DIR) gets a fresh private directory under a name
// another user cannot take first (a planted /tmp/hpcsens-<uid> stopped every appfile job).
#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>

#include "common/private_dir.h"

namespace hpcsens::safe_file {
namespace {

namespace fs = std::filesystem;

int sh(const std::string& cmd) { return std::system(cmd.c_str()); }

// Runs `body` in a child as `uid` (its return value is the child's exit status).
int as_uid(uid_t uid, const std::function<int()>& body) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::setgid(65534) != 0 || ::setuid(uid) != 0) ::_exit(90);
    ::_exit(body());
  }
  int st = 0;
  ::waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

class PrivateDirTwoUsers : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to add users";
    const std::string tag = std::to_string(::getpid() % 1000000);
    victim_ = "hpcsens_pv_" + tag, attacker_ = "hpcsens_pa_" + tag;
    ASSERT_EQ(sh("useradd -M -N -s /bin/false " + victim_), 0);
    ASSERT_EQ(sh("useradd -M -N -s /bin/false " + attacker_), 0);
    victim_uid_ = ::getpwnam(victim_.c_str())->pw_uid;
    attacker_uid_ = ::getpwnam(attacker_.c_str())->pw_uid;
  }
  void TearDown() override {
    if (victim_.empty()) return;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/tmp", ec))
      if (e.path().filename().string().rfind("hpcsens-" + std::to_string(victim_uid_), 0) == 0) fs::remove_all(e.path(), ec);
    sh("userdel -f " + victim_ + " 2>/dev/null");
    sh("userdel -f " + attacker_ + " 2>/dev/null");
  }
  std::string victim_, attacker_;
  uid_t victim_uid_ = 0, attacker_uid_ = 0;
};

TEST_F(PrivateDirTwoUsers, ADirectoryPlantedUnderTheOldFixedNameStopsNothing) {
  const std::string planted = "/tmp/hpcsens-" + std::to_string(victim_uid_);
  // The attacker takes the old fixed name first: a directory of its own, and a symlink beside.
  ASSERT_EQ(as_uid(attacker_uid_, [&] { return ::mkdir(planted.c_str(), 0777) == 0 ? 0 : 1; }), 0);
  ASSERT_EQ(as_uid(attacker_uid_, [&] { return ::symlink("/etc", (planted + ".appfile").c_str()) == 0 ? 0 : 1; }), 0);
  // The victim, without a runtime directory, still gets a fresh private directory of its own.
  const int rc = as_uid(victim_uid_, [&] {
    ::unsetenv("XDG_RUNTIME_DIR");
    Dir d;
    if (const auto err = make_private_dir("appfile", &d); !err.empty()) {
      std::fprintf(stderr, "make_private_dir: %s\n", err.c_str());
      return 1;
    }
    struct stat st {};
    if (::fstat(d.fd(), &st) != 0 || st.st_uid != ::geteuid() || (st.st_mode & 07777) != 0700) return 2;
    if (d.path().rfind(planted + "/", 0) == 0 || d.path() == planted) return 3;
    if (!write_atomic(d, "x.appfile", "-np 1 true\n", 0600).empty()) return 4;
    const std::string path = d.path();
    remove_private_dir(d, {"x.appfile"});
    return ::access(path.c_str(), F_OK) == 0 ? 5 : 0;
  });
  EXPECT_EQ(rc, 0) << "1: refused, 2: not private, 3: inside the planted name, 4: cannot write, 5: not removed";
  // The attacker's directory is left as it was (nothing of ours went into it).
  EXPECT_TRUE(fs::is_empty(planted));
  fs::remove_all(planted);
  fs::remove(planted + ".appfile");
}

TEST_F(PrivateDirTwoUsers, NamesAreUnpredictableAndPatternSaysWhere) {
  const int rc = as_uid(victim_uid_, [&] {
    ::unsetenv("XDG_RUNTIME_DIR");
    if (!private_base_path().empty()) return 1;
    const std::string start = "/tmp/hpcsens-" + std::to_string(::geteuid()) + ".appfile.";
    if (private_dir_pattern("appfile") != start + "RANDOM") return 2;
    Dir a, b;
    if (!make_private_dir("appfile", &a).empty() || !make_private_dir("appfile", &b).empty()) return 3;
    const bool fresh = a.path() != b.path() && a.path().rfind(start, 0) == 0 && a.path().size() >= start.size() + 16;
    remove_private_dir(a, {});
    remove_private_dir(b, {});
    return fresh ? 0 : 4;
  });
  EXPECT_EQ(rc, 0) << "1: a fixed base, 2: pattern, 3: refused, 4: names not fresh or guessable";
}

}  // namespace
}  // namespace hpcsens::safe_file
