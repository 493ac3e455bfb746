// The rules of the kernel model (see kernel_model.h); the trees it starts from are in
// kernel_model_layouts.cpp.
#include "kernel_model.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "kernel_model_tree.h"

namespace fs = std::filesystem;

namespace hpcsens::sweep::testing {
namespace {

[[noreturn]] void refuse(const std::string& path, const std::string& value, int err) {
  throw std::runtime_error("cannot write '" + value + "' to " + path + ": " + std::strerror(err));
}

bool parse_khz(const std::string& v, long* out) {
  if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos || v.size() > 9) return false;
  *out = std::stol(v);
  return true;
}

const std::set<std::string> kWritable = {"scaling_governor", "scaling_setspeed", "scaling_min_freq",
                                         "scaling_max_freq", "no_turbo", "boost", "min_freq_khz", "max_freq_khz"};

void write_policy(ModelTree& t, const std::string& pol, const std::string& name, const std::string& value,
                  const std::string& path) {
  long khz = 0;
  if (name == "scaling_governor") {
    std::istringstream avail(t.get(pol + "/scaling_available_governors"));
    std::set<std::string> govs{std::istream_iterator<std::string>(avail), {}};
    if (!govs.count(value)) refuse(path, value, EINVAL);
    const std::string old = t.get(pol + "/scaling_governor");
    // The userspace governor starts at the current clock (cpufreq_userspace.c).
    if (value == "userspace" && old != "userspace") t.set_hidden(t.policy_key(pol) + ".setspeed", t.get(pol + "/scaling_cur_freq"));
    if (value != "userspace") t.set_hidden(t.policy_key(pol) + ".setspeed", "");
    t.set(pol + "/scaling_governor", value);
    return;
  }
  if (!parse_khz(value, &khz)) refuse(path, value, EINVAL);
  if (name == "scaling_setspeed") {
    if (t.get(pol + "/scaling_governor") != "userspace") refuse(path, value, EINVAL);
    t.set_hidden(t.policy_key(pol) + ".setspeed", std::to_string(khz));
    return;
  }
  const bool is_max = name == "scaling_max_freq";
  const long new_max = is_max ? t.visible_max(khz) : t.visible_max(t.request(pol, true));
  const long new_min_req = is_max ? t.request(pol, false) : khz;
  if (t.resolve(new_min_req, false) > new_max) refuse(path, value, EINVAL);
  t.set_hidden(t.policy_key(pol) + (is_max ? ".max_req" : ".min_req"), std::to_string(khz));
}

void write_uncore(ModelTree& t, const std::string& dir, const std::string& name, const std::string& value,
                  const std::string& path) {
  long khz = 0;
  if (!parse_khz(value, &khz)) refuse(path, value, EINVAL);
  khz = khz / 100000 * 100000;  // the driver keeps 100 MHz units
  if (khz == 0 || khz > 12700000) refuse(path, value, EINVAL);
  const bool is_max = name == "max_freq_khz";
  const long other = std::stol(t.get(dir + (is_max ? "/min_freq_khz" : "/max_freq_khz")));
  // The driver does not check min <= max; what the hardware then does is undefined, so the
  // model refuses it, which holds the sweep to its write order.
  if (is_max ? khz < other : khz > other) refuse(path, value, EINVAL);
  t.set(dir + "/" + name, std::to_string(khz));
  // TPMI: a package-level write reaches every fabric cluster of the package, I/O dies included.
  const std::string base = dir.substr(dir.rfind('/') + 1);
  if (base.rfind("package_", 0) == 0 && t.cfg("uncore") == "tpmi") {
    const std::string pkg = std::to_string(std::stoi(base.substr(8, 2)));
    for (const auto& u : t.uncore_dirs("uncore"))
      if (t.get(u + "/package_id") == pkg) t.set(u + "/" + name, std::to_string(khz));
  }
}

}  // namespace

std::optional<std::string> KernelModel::read(const std::string& path) const {
  const auto t = ModelTree::of(path);
  if (t && t->inactive_policy_of(path)) return std::nullopt;  // EBUSY
  return RealSysfs().read(path);
}

void KernelModel::write(const std::string& path, const std::string& value) {
  auto t = ModelTree::of(path);
  if (!t) throw std::runtime_error("kernel model: " + path + " is not below a modelled tree");
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) refuse(path, value, ENOENT);
  if (t->inactive_policy_of(path)) refuse(path, value, EBUSY);
  const std::string dir = path.substr(0, path.rfind('/')), name = path.substr(path.rfind('/') + 1);
  if (!kWritable.count(name)) refuse(path, value, EACCES);
  if (name == "no_turbo" || name == "boost") {
    if (value != "0" && value != "1") refuse(path, value, EINVAL);
    t->set(t->rel(path), value);
  } else if (name == "min_freq_khz" || name == "max_freq_khz") {
    write_uncore(*t, t->rel(dir), name, value, path);
  } else {
    write_policy(*t, t->rel(dir), name, value, path);
  }
  t->refresh();
}

std::map<std::string, std::string> snapshot(const std::string& root) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (!e.is_regular_file()) continue;
    std::ifstream in(e.path());
    std::stringstream ss;
    ss << in.rdbuf();
    out[fs::relative(e.path(), root).string()] = ss.str();
  }
  return out;
}

}  // namespace hpcsens::sweep::testing
