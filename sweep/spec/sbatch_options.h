#pragma once
// The sbatch options a slurm-array sweep's spec may give (partition, account, time limit, QOS and
// extra arguments), and their checks. Every value becomes one argv word of sbatch, never a
// shell word: the checks keep out what would change what the array runs or how the controller
// finds it, not shell syntax.
#include <string>
#include <vector>

namespace hpcsens::sweep {

struct SbatchOptions {
  std::string partition;           // --partition= (a name or a comma list of names)
  std::string account;             // --account=
  std::string time_limit;          // --time= (Slurm's time formats)
  std::string qos;                 // --qos=
  std::vector<std::string> extra;  // further arguments, each "--name" or "--name=value" (allow-list)
};

// Each returns "" when the value is acceptable, else the problem in words.
std::string slurm_name_problem(const std::string& value, bool allow_list);
std::string slurm_time_problem(const std::string& value);
std::string sbatch_extra_problem(const std::string& arg);

// The options in argv form, in a fixed order (partition, account, time, qos, extra...).
std::vector<std::string> sbatch_option_words(const SbatchOptions& o);

}  // namespace hpcsens::sweep
