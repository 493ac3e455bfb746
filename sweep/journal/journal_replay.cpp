// Replaying a journal: every field is type-checked, so a damaged or hand-edited line is an
// input error naming the line and field instead of an internal error or a silent guess.
#include <algorithm>

#include "common/errors.h"
#include "sweep/journal/journal.h"

namespace hpcsens::sweep {
namespace {

class LineReader {
 public:
  LineReader(const std::string& path, int line, const nlohmann::json& j) : path_(path), line_(line), j_(j) {}

  [[noreturn]] void fail(const std::string& field, const std::string& problem) const {
    throw InputError(path_ + ":" + std::to_string(line_), field + ": " + problem);
  }
  std::string str(const char* key, bool required = false) const {
    const auto it = j_.find(key);
    if (it == j_.end()) {
      if (required) fail(key, "missing");
      return "";
    }
    if (!it->is_string()) fail(key, "must be a string");
    return it->get<std::string>();
  }
  const nlohmann::json* array(const char* key) const {
    const auto it = j_.find(key);
    if (it == j_.end()) return nullptr;
    if (!it->is_array()) fail(key, "must be a list");
    return &*it;
  }
  std::vector<std::string> strings(const nlohmann::json& a, const std::string& field) const {
    std::vector<std::string> out;
    for (const auto& e : a) {
      if (!e.is_string()) fail(field, "must be a list of strings");
      out.push_back(e.get<std::string>());
    }
    return out;
  }
  int integer(const char* key) const {
    const auto it = j_.find(key);
    if (it == j_.end()) return 0;
    if (!it->is_number_integer() || it->get<long long>() < 0 || it->get<long long>() > 1000000)
      fail(key, "must be an integer within [0, 1000000]");
    return int(it->get<long long>());
  }
  unsigned long long count(const char* key) const {
    const auto it = j_.find(key);
    if (it == j_.end()) fail(key, "missing");
    if (!it->is_number_unsigned() && !(it->is_number_integer() && it->get<long long>() >= 0))
      fail(key, "must be a non-negative integer");
    return it->get<unsigned long long>();
  }

 private:
  const std::string& path_;
  int line_;
  const nlohmann::json& j_;
};

void replay_originals(const LineReader& r, const nlohmann::json& j, JournalState& s) {
  s.has_originals = true;
  // Journals of older hpcsens recorded no root; theirs was the default.
  s.sysfs_root = r.str("root");
  if (s.sysfs_root.empty()) s.sysfs_root = "/sys";
  if (const auto* files = r.array("files"))
    for (const auto& f : *files) {
      if (!f.is_object() || !f.contains("path") || !f.contains("value") || !f["path"].is_string() ||
          !f["value"].is_string())
        r.fail("files", "each entry must be {\"path\": string, \"value\": string}");
      s.originals.push_back({f["path"].get<std::string>(), f["value"].get<std::string>()});
    }
  if (const auto* actions = r.array("actions")) s.restore_actions = r.strings(*actions, "actions");
  s.per_node_nnodes = r.integer("nnodes");
  // A node's journal (nodes/<host>/) has no header: its originals carry the sweep's token.
  if (s.token.empty()) s.token = r.str("token");
  if (const auto* cmds = r.array("commands"))
    for (const auto& c : *cmds) {
      if (!c.is_array()) r.fail("commands", "must be a list of lists of strings");
      s.unrun_commands.push_back(r.strings(c, "commands"));
    }
  (void)j;
}

void replay_line(const LineReader& r, const nlohmann::json& j, JournalState& s) {
  const std::string type = r.str("type", true);
  if (type == "header") {
    if (const auto* runs = r.array("runs")) r.strings(*runs, "runs");
    r.str("spec");
    if (!s.header) {
      s.header = j;
      s.token = r.str("token");
    }
  } else if (type == "originals") {
    // Only the first save counts: a later one (after a resume) would read values the sweep
    // itself had set.
    if (!s.has_originals) replay_originals(r, j, s);
  } else if (type == "apply") {
    s.knobs_dirty = true;
  } else if (type == "restored") {
    s.knobs_dirty = false;
  } else if (type == "resctrl_group") {
    // Written before the mkdir: a group named here may or may not exist; a restore removes it
    // if it does.
    s.resctrl_root = r.str("root", true);
    const std::string g = r.str("group", true);
    if (std::find(s.resctrl_groups.begin(), s.resctrl_groups.end(), g) == s.resctrl_groups.end())
      s.resctrl_groups.push_back(g);
    s.knobs_dirty = true;
  } else if (type == "resctrl_removed") {
    const std::string g = r.str("group", true);
    s.resctrl_groups.erase(std::remove(s.resctrl_groups.begin(), s.resctrl_groups.end(), g), s.resctrl_groups.end());
  } else if (type == "run") {
    const std::string id = r.str("id", true);
    if (r.str("status", true) == "ok") {
      s.done.insert(id);
      s.skipped.erase(id);
    } else {
      ++s.failed_attempts[id];
    }
  } else if (type == "lost") {
    // Journalled as done, but its record was gone at a resume: it has to run again.
    s.done.erase(r.str("id", true));
  } else if (type == "skipped") {
    s.skipped.insert(r.str("id", true));
  } else if (type == "finished") {
    s.finished = true;
  } else if (type == "child") {
    ProcessIdentity c;
    const auto pid = r.count("pid");
    if (pid == 0 || pid > (1u << 22)) r.fail("pid", "must be a process id (1 to 4194304)");
    c.pid = int(pid);
    c.start_ticks = r.count("start");
    c.boot_id = r.str("boot", true);
    s.children.push_back(c);
  }
}

}  // namespace

JournalState replay_journal(const JournalLines& lines) {
  JournalState s;
  s.unparsable = lines.unparsable;
  s.unparsable_inner = lines.unparsable - (lines.torn_tail ? 1 : 0);
  s.first_unparsable = lines.first_unparsable;
  for (const auto& [no, j] : lines.lines) replay_line(LineReader(lines.path, no, j), j, s);
  return s;
}

}  // namespace hpcsens::sweep
