#include "sweep/execute/resctrl_join.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "common/errors.h"
#include "common/safe_file.h"
#include "common/text_escape.h"
#include "sweep/knobs/knob_backend.h"
#include "mpi/launcher.h"
#include "record/run_record.h"
#include "sweep/journal/journal.h"
#include "sweep/knobs/resctrl_fs.h"
#include "sweep/knobs/resctrl_groups.h"
#include "sweep/spec/sweep_common.h"

namespace hpcsens::sweep {
namespace {

bool file_name_ok(const std::string& s) {
  return !s.empty() && s[0] != '.' && s.size() < 200 &&
         s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == std::string::npos;
}

std::string joins_dir(const std::string& dir, const std::string& run) { return dir + "/resctrl-joins/" + run; }

// The node's journal says which groups this sweep made here and has not removed.
std::string journalled_group_problem(const JoinRequest& r, const std::string& host, std::string* root) {
  const std::string node_dir = r.dir + "/nodes/" + host;
  safe_file::Dir d;
  if (auto err = safe_file::open_dir(node_dir, false, &d); !err.empty())
    return "this node has no journal of the sweep (" + err + "): its knobs were not applied here";
  JournalState st;
  try {
    st = replay_journal(read_journal(d));
  } catch (const std::exception& e) {
    return e.what();
  }
  if (st.token != r.token)
    return node_dir + " belongs to sweep '" + st.token + "', not to sweep '" + r.token + "'";
  if (std::find(st.resctrl_groups.begin(), st.resctrl_groups.end(), r.group) == st.resctrl_groups.end())
    return "group " + r.group + " is not live in " + node_dir + "'s journal (made by this sweep here and not removed)";
  if (auto why = resctrl_group_problem(st.resctrl_root, r.group, r.token); !why.empty()) return why;
  *root = st.resctrl_root;
  return "";
}

// The group's own directory and tasks file, as resctrl makes them: no symlink, the user's own.
std::string group_files_problem(const std::string& group_dir) {
  struct stat sb {};
  if (::lstat(group_dir.c_str(), &sb) != 0) return "cannot find " + group_dir;
  if (!S_ISDIR(sb.st_mode)) return group_dir + " is not a directory (a symlink?)";
  if (sb.st_uid != ::geteuid()) return group_dir + " is owned by uid " + std::to_string(sb.st_uid) + ", not by us";
  const std::string tasks = group_dir + "/tasks";
  if (::lstat(tasks.c_str(), &sb) != 0) return "cannot find " + tasks;
  if (!S_ISREG(sb.st_mode)) return tasks + " is not a regular file (a symlink?)";
  return "";
}

}  // namespace

std::string this_host_name() {
  char host[256] = "localhost";
  ::gethostname(host, sizeof host - 1);
  return host;
}

std::vector<std::string> join_agent_words(const std::string& hpcsens, const JoinRequest& r) {
  return {hpcsens, "resctrl-join", "--dir", r.dir, "--token", r.token, "--group", r.group, "--run", r.run, "--"};
}

std::string join_node_group(const JoinRequest& r) {
  if (r.dir.empty() || r.dir[0] != '/') return "--dir '" + r.dir + "' is not an absolute path";
  if (!file_name_ok(r.run)) return "--run '" + r.run + "' is not a plain name";
  if (!file_name_ok(r.group)) return "--group '" + r.group + "' is not a plain name";
  const std::string host = this_host_name();
  if (!file_name_ok(host)) return "this host's name '" + host + "' cannot name a file";
  std::string root;
  if (auto why = journalled_group_problem(r, host, &root); !why.empty()) return why;
  const std::string group_dir = root + "/" + r.group;
  if (auto why = group_files_problem(group_dir); !why.empty()) return why;
  const std::string pid = std::to_string(::getpid());
  try {
    machine_resctrl().write(group_dir + "/tasks", pid);
  } catch (const std::exception& e) {
    return e.what();
  }
  safe_file::Dir d;
  if (auto err = safe_file::open_dir(joins_dir(r.dir, r.run), true, &d); !err.empty()) return err;
  const nlohmann::json note = {{"host", host}, {"pid", ::getpid()}, {"group", group_dir}};
  return safe_file::write_atomic(d, host + "." + pid, note.dump() + "\n");
}

std::string join_note_problem(int dir_fd, const std::string& name, uid_t euid, std::string* host) {
  const auto dot = name.rfind('.');
  if (dot == std::string::npos || dot == 0 || !file_name_ok(name)) return "not a note's name (<host>.<pid>)";
  // Never blocks (a FIFO) and never follows a link; owner and type are checked on the descriptor.
  const int fd = ::openat(dir_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return std::string("cannot open: ") + std::strerror(errno);
  struct stat st {};
  std::string why;
  char buf[1024];
  ssize_t n = -1;
  if (::fstat(fd, &st) != 0) why = std::strerror(errno);
  else if (!S_ISREG(st.st_mode)) why = "not a regular file";
  else if (st.st_uid != euid) why = "owned by uid " + std::to_string(st.st_uid) + ", not by the sweep's user";
  else if (st.st_nlink != 1 || (st.st_mode & (S_IWGRP | S_IWOTH))) why = "has other links or is writable by others";
  else if ((n = ::read(fd, buf, sizeof buf)) <= 0 || std::size_t(n) == sizeof buf) why = "empty, unreadable or too long";
  ::close(fd);
  if (!why.empty()) return why;
  const auto note = nlohmann::json::parse(std::string(buf, std::size_t(n)), nullptr, false);
  const std::string want_host = name.substr(0, dot), want_pid = name.substr(dot + 1);
  if (!note.is_object() || !note.contains("host") || !note["host"].is_string() || note["host"] != want_host ||
      !note.contains("pid") || !note["pid"].is_number_integer() || std::to_string(note["pid"].get<long>()) != want_pid)
    return "its host and pid are not those of its name";
  *host = want_host;
  return "";
}

std::vector<std::string> hosts_outside_group(const std::string& dir, const std::string& run,
                                             const std::vector<std::string>& hosts, const std::string& this_host,
                                             bool launcher_joined) {
  std::vector<std::string> noted;
  safe_file::Dir d;
  std::error_code ec;
  // The notes' directory is reached by the checked walk: one another user controls is not read.
  if (std::filesystem::is_directory(joins_dir(dir, run), ec) && safe_file::open_dir(joins_dir(dir, run), false, &d).empty()) {
    for (const auto& e : std::filesystem::directory_iterator(joins_dir(dir, run), ec)) {
      const auto name = e.path().filename().string();
      std::string host;
      if (auto why = join_note_problem(d.fd(), name, ::geteuid(), &host); !why.empty())
        fmt::print(stderr, "hpcsens sweep: ignoring join note {}: {}\n", text::escape_for_message(d.child(name)), why);
      else
        noted.push_back(host);
    }
  }
  std::vector<std::string> out;
  for (const auto& h : hosts) {
    if (h == this_host && launcher_joined) continue;
    if (std::find(noted.begin(), noted.end(), h) == noted.end() &&
        std::find(out.begin(), out.end(), h) == out.end())
      out.push_back(h);
  }
  return out;
}

GroupJoins::GroupJoins(const SweepSpec& spec, const KnobSet& knobs, const std::string& hpcsens, const Session& session)
    : knobs_(knobs), session_(session), hpcsens_(hpcsens), where_(spec_line(spec, spec.mem_bw_line)) {
  if (knobs.resctrl_root().empty() || slurm_nnodes() < 2 || spec.command.empty()) return;
  openmpi_major_ = openmpi_major_version(mpi::probe_launcher_version(spec.command[0]));
  // The backend accepted only Open MPI (backend_resctrl.cpp); its version cannot be read now.
  if (openmpi_major_ == 0)
    throw std::runtime_error("cannot read Open MPI's version from '" + spec.command[0] +
                             " --version', so the resctrl launch agent cannot be named");
}

Argv GroupJoins::launch(const Argv& argv, const Point& p, const std::string& key) const {
  if (openmpi_major_ == 0 || argv.empty() || !knobs_.resctrl_schemata(p)) return argv;
  const auto& token = session_.state.token;
  const JoinRequest r{session_.abs_dir, token, resctrl_group_name(token), key};
  return with_openmpi_launch_agent(argv, join_agent_words(hpcsens_, r), openmpi_major_);
}

std::vector<std::string> GroupJoins::check(const std::string& record_path, const Point& p, const std::string& key) const {
  if (knobs_.resctrl_root().empty() || !knobs_.resctrl_schemata(p)) return {};
  const auto hosts = record::load_run_record(record_path).job.hosts;
  const auto outside = hosts_outside_group(session_.abs_dir, key, hosts, this_host_name(), !job_tasks_file().empty());
  if (outside.empty()) return hosts;
  throw InputError(where_, fmt::format(
      "knobs.memory_backend: resctrl: at point {} the ranks on {} ran outside the point's resctrl group {}, so their "
      "memory rate is not the point's; the sweep stops (the record stays in attempts/, not records/). {}",
      p.label, fmt::join(outside, ", "), resctrl_group_name(session_.state.token),
      openmpi_major_ == 0 ? "A resctrl sweep makes its group on this node only: run every rank on this node, or "
                            "run the sweep inside a Slurm allocation of all the job's nodes (salloc -N)"
                          : "Their daemon did not start through the launch agent hpcsens named (hpcsens "
                            "resctrl-join): does the launcher honour Open MPI's launch agent (plm rsh or slurm)?"));
}

}  // namespace hpcsens::sweep
