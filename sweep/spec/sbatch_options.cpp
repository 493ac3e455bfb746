// Checks of the spec's sbatch options. sbatch.extra is an allow-list: only options that shape the
// resources of each task (memory, cores, GPUs, node features, exclusivity) are accepted, spelled in
// full; anything else, including what could change who runs the array (--uid, --gid), when
// (--begin, --dependency, --deadline), where its input and output go (--input, --export, --bb),
// on which cluster or in which container, is refused naming the option. sbatch reads long options
// with getopt_long, which takes any unambiguous prefix (--wra is --wrap): an exact name in the
// list is the option itself, and the reserved names below get their own reason even abbreviated.
#include "sweep/spec/sbatch_options.h"

#include <cctype>

namespace hpcsens::sweep {
namespace {

struct Reserved {
  const char* name;
  const char* why;
};

// The controller's own options, the spec's dedicated fields, and options that replace or hold
// the batch script (the array would run something else, or never end).
constexpr Reserved kReserved[] = {
    {"array", "the controller sets --array from the plan and array_max_running"},
    {"job-name", "the controller names the array (it finds a lost submission by that name)"},
    {"output", "the controller sends task output to DIR/array/"},
    {"error", "the controller sends task output to DIR/array/"},
    {"chdir", "the controller sets --chdir to the sweep directory"},
    {"parsable", "the controller reads the job id with --parsable"},
    {"wrap", "the array runs the controller's fixed batch script, never a command line"},
    {"hold", "a held array never runs, and the controller would wait for it"},
    {"test-only", "a test-only submission submits nothing"},
    {"wait", "the controller watches the array itself"},
    {"cpu-freq", "each task sets the run's clock on its srun line"},
    {"partition", "use sbatch.partition"},
    {"account", "use sbatch.account"},
    {"time", "use sbatch.time_limit"},
    {"qos", "use sbatch.qos"},
};

// Options that only shape each task's resources; nothing here changes identity, timing,
// dependencies, I/O, cluster or container (sbatch(1)).
constexpr const char* kAllowed[] = {
    "exclusive",     "mem",           "mem-per-cpu",     "mem-per-gpu",      "cpus-per-task",
    "cpus-per-gpu",  "ntasks-per-node", "ntasks-per-core", "ntasks-per-socket",
    "mincpus",       "gres",          "gres-flags",      "gpus",             "gpus-per-node",
    "gpus-per-task", "gpus-per-socket", "constraint",    "exclude",          "nodelist",
    "reservation",   "threads-per-core", "cores-per-socket", "sockets-per-node", "hint",
    "distribution",  "licenses",      "comment",         "oversubscribe",    "spread-job",
    "contiguous",    "tmp",           "mem-bind",        "core-spec",        "thread-spec",
};

std::string allowed_list() {
  std::string out;
  for (const char* a : kAllowed) out += std::string(out.empty() ? "--" : ", --") + a;
  return out;
}

bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.'; }

bool all_digits(const std::string& s) {
  if (s.empty() || s.size() > 9) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

}  // namespace

std::string slurm_name_problem(const std::string& value, bool allow_list) {
  if (value.empty()) return "must not be empty";
  if (value.size() > 200) return "is longer than 200 characters";
  std::size_t start = 0;
  for (std::size_t i = 0; i <= value.size(); ++i) {
    if (i < value.size() && value[i] == ',' && allow_list) {
      if (i == start) return "has an empty name in its comma list";
      start = i + 1;
      continue;
    }
    if (i == value.size()) break;
    if (!name_char(value[i])) return "may hold only letters, digits, '_', '-' and '.'" + std::string(allow_list ? " (and ',' between names)" : "") + ", got '" + value + "'";
    if (i == start && value[i] == '-') return "must not start with '-', got '" + value + "'";
  }
  if (start == value.size()) return "has an empty name in its comma list";
  return "";
}

// Slurm's formats: M, M:S, H:M:S, D-H, D-H:M, D-H:M:S, or UNLIMITED / INFINITE.
std::string slurm_time_problem(const std::string& value) {
  if (value == "UNLIMITED" || value == "INFINITE" || value == "unlimited" || value == "infinite") return "";
  const std::string bad = "must be a Slurm time (minutes, M:S, H:M:S, D-H, D-H:M, D-H:M:S or UNLIMITED), got '" + value + "'";
  std::string rest = value;
  const auto dash = value.find('-');
  if (dash != std::string::npos) {
    if (!all_digits(value.substr(0, dash))) return bad;
    rest = value.substr(dash + 1);
  }
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= rest.size(); ++i)
    if (i == rest.size() || rest[i] == ':') parts.push_back(rest.substr(start, i - start)), start = i + 1;
  if (parts.size() > 3) return bad;
  for (const auto& p : parts)
    if (!all_digits(p)) return bad;
  for (std::size_t i = 1; i < parts.size(); ++i)
    if (std::stol(parts[i]) > 59) return bad;
  return "";
}

std::string sbatch_extra_problem(const std::string& arg) {
  if (arg.size() < 3 || arg.compare(0, 2, "--") != 0)
    return "must be a long option starting with -- (e.g. --exclusive or --mem=0), got '" + arg + "'";
  for (char c : arg)
    if (std::iscntrl(static_cast<unsigned char>(c))) return "must not hold control characters (a newline, a tab)";
  const std::string name = arg.substr(2, arg.find('=') - 2);
  if (name.empty()) return "has no option name before '=', got '" + arg + "'";
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-')
      return "option name may hold only letters, digits and '-', got '" + arg + "'";
  for (const auto& r : kReserved)
    if (std::string(r.name).compare(0, name.size(), name) == 0)
      return "'--" + name + "' is (or abbreviates) --" + r.name + ", which is not allowed here: " + r.why;
  for (const char* a : kAllowed)
    if (name == a) return "";
  return "'--" + name + "' is not an option sbatch.extra accepts: only options that shape each task's "
         "resources, spelled in full (" + allowed_list() + "); options that change who runs the array, when, "
         "after what, where its input and output go, on which cluster or in which container are refused";
}

std::vector<std::string> sbatch_option_words(const SbatchOptions& o) {
  std::vector<std::string> out;
  if (!o.partition.empty()) out.push_back("--partition=" + o.partition);
  if (!o.account.empty()) out.push_back("--account=" + o.account);
  if (!o.time_limit.empty()) out.push_back("--time=" + o.time_limit);
  if (!o.qos.empty()) out.push_back("--qos=" + o.qos);
  out.insert(out.end(), o.extra.begin(), o.extra.end());
  return out;
}

}  // namespace hpcsens::sweep
