#pragma once
// Helpers of the sweep's guard tests (locks, concurrency, attacks, full disk): the journal as
// JSON, a fake sysfs tree with its expected original values, a private machine-lock directory,
// and a second unprivileged user created for one test (root only) and removed after it.
#include <grp.h>
#include <pwd.h>

#include <cstdlib>

#include "sweep_cli_helpers.h"

namespace hpcsens::sweep::testing {

inline std::vector<nlohmann::json> journal_of(const std::string& dir) { return journal(dir); }

// run id -> number of "ok" lines.
inline std::map<std::string, int> ok_runs(const std::string& dir) {
  std::map<std::string, int> ok;
  for (const auto& e : journal_of(dir))
    if (e.value("type", "") == "run" && e.value("status", "") == "ok") ++ok[e["id"].get<std::string>()];
  return ok;
}

inline int count_records(const std::string& dir) {
  int n = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir + "/records", ec)) n += e.path().extension() == ".json";
  return n;
}

inline void make_knob_tree(const std::string& root) { make_tree(root); }

inline bool tree_is_original(const std::string& root) {
  for (int p = 0; p < 2; ++p)
    if (get(policy_dir(root, p) + "/scaling_min_freq") != "800000" ||
        get(policy_dir(root, p) + "/scaling_max_freq") != "3500000")
      return false;
  return get(uncore_dir(root, 0) + "/min_freq_khz") == "800000" && get(uncore_dir(root, 0) + "/max_freq_khz") == "2500000";
}

inline std::string mpi_job() { return mpi_job(1); }

// The CLI tests' knob spec, run in plan order.
inline std::string sequential_knob_spec(const std::string& root, const std::string& command,
                                        const std::string& extra = "") {
  return knob_spec(root, command, "order: sequential\n" + extra);
}

inline std::string emulated_spec(const std::string& extra = "") {
  return "emulated: {W_cpu: 6, W_mem: 20, T_io: 1, mem_gbs: 50, seed: 2}\nknobs: {cpu_ghz: [1.0, 1.5, 2.0]}\n"
         "repetitions: 2\n" + extra;
}

// Machine-wide locks of this test in its own directory (never /run/hpcsens).
inline void private_lock_dir(const TempDir& t) {
  ::setenv("HPCSENS_LOCK_DIR", (t.path() + "/locks").c_str(), 1);
}

// A second, unprivileged user for one test.
class OtherUser {
 public:
  OtherUser() : name_("hsatk" + std::to_string(::getpid() % 100000)) {
    const std::string cmd = "useradd -M -N -s /usr/sbin/nologin " + name_ + " 2>/dev/null";
    ok_ = std::system(cmd.c_str()) == 0 || ::getpwnam(name_.c_str()) != nullptr;
    if (const passwd* pw = ::getpwnam(name_.c_str())) uid_ = pw->pw_uid, gid_ = pw->pw_gid;
  }
  ~OtherUser() { (void)!std::system(("userdel " + name_ + " 2>/dev/null").c_str()); }
  bool ok() const { return ok_ && uid_ != 0; }
  uid_t uid() const { return uid_; }
  gid_t gid() const { return gid_; }
  // argv run as this user (setpriv: no capabilities, no supplementary groups).
  std::vector<std::string> as(const std::vector<std::string>& argv) const {
    std::vector<std::string> out = {"/usr/bin/setpriv", "--reuid=" + std::to_string(uid_),
                                    "--regid=" + std::to_string(gid_), "--clear-groups", "--"};
    out.insert(out.end(), argv.begin(), argv.end());
    return out;
  }

 private:
  std::string name_;
  bool ok_ = false;
  uid_t uid_ = 0;
  gid_t gid_ = 0;
};

}  // namespace hpcsens::sweep::testing

