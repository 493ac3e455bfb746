// The rules of the resctrl double (see resctrl_model.h).
#include "resctrl_model.h"

#include <signal.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace hpcsens::sweep::testing {
namespace {

std::string read_text(const std::string& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

void write_text(const std::string& p, const std::string& text) { std::ofstream(p, std::ios::trunc) << text; }

[[noreturn]] void refuse_errno(const std::string& what, int err) { throw ResctrlError(what + ": " + std::strerror(err), err); }

// The kernel says why in info/last_cmd_status, then the syscall fails.
[[noreturn]] void refuse_cmd(const std::string& root, const std::string& what, const std::string& status, int err) {
  write_text(root + "/info/last_cmd_status", status + "\n");
  refuse_errno(what, err);
}

bool all_decimal(const std::string& s) { return !s.empty() && s.size() < 10 && s.find_first_not_of("0123456789") == std::string::npos; }

// kstrtou32: decimal digits that fit 32 bits.
bool u32_decimal(const std::string& s) {
  return !s.empty() && s.size() <= 10 && s.find_first_not_of("0123456789") == std::string::npos && std::stoull(s) <= 4294967295ull;
}

bool mounted_mbps(const std::string& root) { return read_text(root + "/.model/mounts").find(",mba_MBps") != std::string::npos; }

std::vector<std::string> groups_of(const std::string& root) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(root)) {
    const auto n = e.path().filename().string();
    if (e.is_directory() && n != "info" && n != "mon_groups" && n != "mon_data" && n[0] != '.') out.push_back(n);
  }
  return out;
}

// resource -> domain -> value, in the order the kernel prints them.
using Schemata = std::map<std::string, std::map<std::string, std::string>>;

Schemata parse(const std::string& text) {
  Schemata s;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::istringstream items(line.substr(colon + 1));
    for (std::string it; std::getline(items, it, ';');) s[line.substr(0, colon)][it.substr(0, it.find('='))] = it.substr(it.find('=') + 1);
  }
  return s;
}

std::string format(const Schemata& s) {
  std::string out;
  for (const auto& [res, doms] : s) {
    out += res + ":";
    bool first = true;
    for (const auto& [d, v] : doms) out += (first ? "" : ";") + d + "=" + v, first = false;
    out += "\n";
  }
  return out;
}

std::string trim_blanks(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\t')) s.pop_back();
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.erase(0, 1);
  return s;
}

// One schemata write: every entry validated before anything changes (ctrlmondata.c).
void write_schemata(const std::string& root, const std::string& path, const std::string& value) {
  Schemata cur = parse(read_text(path));
  const long min_bw = std::stol(read_text(root + "/info/MB/min_bandwidth")), gran = std::stol(read_text(root + "/info/MB/bandwidth_gran"));
  const long max_bw = std::stol(read_text(root + "/.model/mb_max"));
  std::istringstream in(value);
  for (std::string line; std::getline(in, line);) {
    line = trim_blanks(line);
    if (line.empty()) continue;
    const auto colon = line.find(':');
    const std::string res = colon == std::string::npos ? line : line.substr(0, colon);
    if (colon == std::string::npos || !cur.count(res))
      refuse_cmd(root, "schemata " + path, "Unknown or unsupported resource name '" + res + "'", EINVAL);
    std::istringstream items(line.substr(colon + 1));
    for (std::string it; std::getline(items, it, ';');) {
      const auto eq = it.find('=');
      const std::string dom = eq == std::string::npos ? "" : trim_blanks(it.substr(0, eq)), v = eq == std::string::npos ? "" : trim_blanks(it.substr(eq + 1));
      if (eq == std::string::npos || !all_decimal(dom)) refuse_cmd(root, path, "Missing '=' or non-numeric domain", EINVAL);
      if (!cur[res].count(dom)) refuse_cmd(root, path, "Unknown domain " + dom, EINVAL);
      if (res == "MB") {
        if (!u32_decimal(v)) refuse_cmd(root, path, "Invalid MB value " + v, EINVAL);
        const long bw = std::stol(v);
        if (mounted_mbps(root)) {  // the software controller takes any value as it is
          cur[res][dom] = std::to_string(bw);
          continue;
        }
        if (bw < min_bw || bw > max_bw)
          refuse_cmd(root, path, "MB value " + v + " out of range [" + std::to_string(min_bw) + "," + std::to_string(max_bw) + "]", EINVAL);
        cur[res][dom] = std::to_string((bw + gran - 1) / gran * gran);
      } else {
        if (v.empty() || v.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
          refuse_cmd(root, path, "Non-hex character in the mask " + v, EINVAL);
        cur[res][dom] = v;
      }
    }
  }
  write_text(path, format(cur));
  write_text(root + "/info/last_cmd_status", "ok\n");
}

void write_tasks(const std::string& root, const std::string& path, const std::string& value) {
  const std::string v = trim_blanks(value);
  if (!all_decimal(v)) refuse_cmd(root, path, "Task write: '" + v + "' is not a pid", EINVAL);
  const int pid = std::stoi(v);
  if (::kill(pid, 0) != 0 && errno == ESRCH) refuse_cmd(root, path, "No task " + v, ESRCH);
  // A task is in exactly one group: take it out of every other one.
  std::vector<std::string> dirs = {root};
  for (const auto& g : groups_of(root)) dirs.push_back(root + "/" + g);
  for (const auto& d : dirs) {
    std::istringstream in(read_text(d + "/tasks"));
    std::string kept;
    bool had = false;
    for (std::string t; std::getline(in, t);) {
      if (!t.empty() && t != v) kept += t + "\n";
      had = had || t == v;
    }
    if (had) write_text(d + "/tasks", kept);
  }
  std::ofstream(path, std::ios::app) << v << "\n";
  write_text(root + "/info/last_cmd_status", "ok\n");
}

}  // namespace

void build_resctrl(const std::string& root, const ResctrlLayout& l) {
  fs::create_directories(root + "/info/L3");
  fs::create_directories(root + "/.model");
  write_text(root + "/info/last_cmd_status", "ok\n");
  write_text(root + "/info/L3/cbm_mask", "fff\n");
  write_text(root + "/info/L3/num_closids", std::to_string(l.num_closids) + "\n");
  const long max = l.mba_mbps ? 4294967295L : l.amd ? l.amd_max : 100;
  write_text(root + "/.model/mb_max", std::to_string(max) + "\n");
  write_text(root + "/.model/mounts", "sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0\nresctrl " +
                                          (l.mount_point.empty() ? root : l.mount_point) +
                                          " resctrl rw,relatime" + (l.mba_mbps ? ",mba_MBps" : "") + " 0 0\n");
  write_text(root + "/.model/rmid_limbo", "0\n");
  std::string l3 = "L3:", mb = "MB:";
  for (std::size_t i = 0; i < l.domains.size(); ++i) {
    l3 += (i ? ";" : "") + l.domains[i] + "=fff";
    mb += (i ? ";" : "") + l.domains[i] + "=" + std::to_string(l.default_mb >= 0 ? l.default_mb : max);
  }
  if (l.num_rmids == 0) fs::remove_all(root + "/info/L3_MON");
  if (l.num_rmids > 0) {
    fs::create_directories(root + "/info/L3_MON");
    write_text(root + "/info/L3_MON/num_rmids", std::to_string(l.num_rmids) + "\n");
  }
  if (l.mba) {
    fs::create_directories(root + "/info/MB");
    write_text(root + "/info/MB/min_bandwidth", std::to_string(l.amd ? 0 : l.min_bandwidth) + "\n");
    write_text(root + "/info/MB/bandwidth_gran", std::to_string(l.amd ? 1 : l.bandwidth_gran) + "\n");
    write_text(root + "/info/MB/num_closids", std::to_string(l.num_closids) + "\n");
    write_text(root + "/info/MB/delay_linear", l.amd ? "0\n" : "1\n");
    if (!l.amd) write_text(root + "/info/MB/thread_throttle_mode", "max\n");  // Intel only (Linux 5.10)
    else fs::remove(root + "/info/MB/thread_throttle_mode");  // a tree rebuilt with another layout
  }
  write_text(root + "/schemata", l3 + "\n" + (l.mba ? mb + "\n" : ""));
  write_text(root + "/tasks", "1\n");
  write_text(root + "/cpus_list", "0-" + std::to_string(l.domains.size() * 4 - 1) + "\n");
}

void ResctrlModel::write(const std::string& path, const std::string& value) {
  const std::string dir = path.substr(0, path.rfind('/')), name = path.substr(path.rfind('/') + 1);
  const bool is_root = fs::exists(dir + "/info/last_cmd_status");
  const std::string root = is_root ? dir : dir.substr(0, dir.rfind('/'));
  if (!fs::exists(root + "/info/last_cmd_status")) refuse_errno(path + " is not in a resctrl tree", ENOENT);
  // Every write of the sweep opens with O_NOFOLLOW.
  if (fs::is_symlink(path)) refuse_errno("cannot open " + path, ELOOP);
  if (!fs::is_regular_file(path)) refuse_errno("cannot open " + path, ENOENT);
  if (name == "schemata") write_schemata(root, path, value);
  else if (name == "tasks") write_tasks(root, path, value);
  else refuse_errno("cannot write " + path, EACCES);
}

void ResctrlModel::make_group(const std::string& root, const std::string& name) {
  const std::string g = root + "/" + name;
  if (name == "info" || fs::exists(g)) refuse_errno("mkdir " + g, EEXIST);
  if (int(groups_of(root).size()) + 1 >= std::stoi(read_text(root + "/info/L3/num_closids")))
    refuse_cmd(root, "mkdir " + g, "Out of CLOSIDs", ENOSPC);
  if (fs::exists(root + "/info/L3_MON/num_rmids")) {
    const int limbo = std::stoi(read_text(root + "/.model/rmid_limbo"));
    const int in_use = int(groups_of(root).size()) + 1 + limbo;  // the default group holds RMID 0
    if (in_use >= std::stoi(read_text(root + "/info/L3_MON/num_rmids")))
      refuse_cmd(root, "mkdir " + g, "Out of RMIDs", limbo > 0 ? EBUSY : ENOSPC);
  }
  fs::create_directory(g);
  // A new group starts at every resource's default: the full mask, the maximum bandwidth.
  Schemata s = parse(read_text(root + "/schemata"));
  for (auto& [res, doms] : s)
    for (auto& [d, v] : doms) v = res == "MB" ? read_text(root + "/.model/mb_max") : read_text(root + "/info/L3/cbm_mask");
  write_text(g + "/schemata", format(s));
  write_text(g + "/tasks", "");
  write_text(g + "/cpus_list", "\n");
  write_text(g + "/mode", "shareable\n");
  write_text(root + "/info/last_cmd_status", "ok\n");
}

void ResctrlModel::remove_group(const std::string& root, const std::string& name) {
  const std::string g = root + "/" + name;
  if (name.empty() || name == "." || name == "..") refuse_errno("rmdir " + root + " (the default group)", EBUSY);
  if (name == "info") refuse_errno("rmdir " + g, EPERM);
  if (!fs::is_directory(g)) refuse_errno("rmdir " + g, ENOENT);
  // Its live tasks go back to the default group (a dead task is in no group).
  std::istringstream in(read_text(g + "/tasks"));
  for (std::string t; std::getline(in, t);)
    if (all_decimal(t) && ::kill(std::stoi(t), 0) == 0) std::ofstream(root + "/tasks", std::ios::app) << t << "\n";
  fs::remove_all(g);
  // Its RMID is dirty until its cache occupancy drains (longer than any test here).
  const std::string limbo = root + "/.model/rmid_limbo";
  if (fs::exists(root + "/info/L3_MON/num_rmids")) write_text(limbo, std::to_string(std::stoi(read_text(limbo)) + 1) + "\n");
}

}  // namespace hpcsens::sweep::testing
