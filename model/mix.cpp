#include "model/mix.h"

#include <fmt/core.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "common/errors.h"
#include "common/safe_file.h"
#include "model/model_json.h"
#include "model/yaml_position.h"

namespace hpcsens::model {
namespace {

void check_keys(const YAML::Node& n, const std::string& path, const std::set<std::string>& known,
                const std::string& expected) {
  for (const auto& kv : n) {
    if (!kv.first.IsScalar())
      throw InputError(yaml_position(path, kv.first), "a field name must be a plain word, not a list or mapping");
    if (!known.count(kv.first.Scalar()))
      throw InputError(yaml_position(path, kv.first) + ": field '" + kv.first.Scalar() + "'",
                       "unknown field (expected " + expected + ")");
  }
}

std::string need_string(const YAML::Node& n, const char* key, const std::string& path) {
  const YAML::Node v = n[key];
  if (!v) throw InputError(yaml_position(path, n) + ": field '" + key + "'", "missing");
  if (!v.IsScalar() || v.Scalar().empty())
    throw InputError(yaml_position(path, v) + ": field '" + key + "'", "must be a non-empty word");
  return v.Scalar();
}

double need_positive(const YAML::Node& v, const char* key, const std::string& path, double hi) {
  const std::string where = yaml_position(path, v) + ": field '" + key + "'";
  if (!v.IsScalar()) throw InputError(where, "not a number (a list or mapping)");
  double d = 0;
  try {
    d = v.as<double>();
  } catch (const YAML::Exception&) {
    throw InputError(where, "'" + v.Scalar() + "' is not a number");
  }
  if (!std::isfinite(d) || d <= 0 || d > hi)
    throw InputError(where, fmt::format("must be a finite number greater than zero and at most {:g}", hi));
  return d;
}

MixApp parse_app(const YAML::Node& n, const std::string& path, const std::filesystem::path& dir) {
  if (!n.IsMap()) throw InputError(yaml_position(path, n), "expected an application mapping with name, model, weight");
  check_keys(n, path, {"name", "model", "weight", "description"}, "name, model, weight, description");
  MixApp a;
  a.where = yaml_position(path, n);
  a.name = need_string(n, "name", path);
  const std::string model = need_string(n, "model", path);
  if (!n["weight"]) throw InputError(yaml_position(path, n) + ": field 'weight'", "missing");
  a.weight = need_positive(n["weight"], "weight", path, 1e9);
  const std::filesystem::path mp(model);
  a.model_path = mp.is_absolute() ? model : (dir / mp).string();
  try {
    a.model = load_model(a.model_path);
  } catch (const InputError& e) {
    throw InputError(yaml_position(path, n["model"]) + ": field 'model'", e.what());
  }
  return a;
}

Mix parse_mix_yaml(const std::string& text, const std::string& path) {
  const YAML::Node root = YAML::Load(text);
  if (!root.IsMap()) throw InputError(path, "expected a mapping with 'applications:'");
  check_keys(root, path, {"applications", "baseline_nodes", "description"}, "applications, baseline_nodes, description");
  const YAML::Node list = root["applications"];
  if (!list) throw InputError(path + ": field 'applications'", "missing");
  if (!list.IsSequence() || list.size() == 0)
    throw InputError(yaml_position(path, list) + ": field 'applications'",
                     "expected a non-empty list of {name, model, weight}");
  Mix m;
  m.path = path;
  if (root["baseline_nodes"]) m.baseline_nodes = need_positive(root["baseline_nodes"], "baseline_nodes", path, 1e7);
  const auto dir = std::filesystem::path(path).parent_path();
  std::set<std::string> names;
  double total = 0;
  for (const auto& n : list) {
    MixApp a = parse_app(n, path, dir);
    if (!names.insert(a.name).second)
      throw InputError(a.where + ": field 'name'", "duplicate application name '" + a.name + "'");
    total += a.weight;
    m.apps.push_back(std::move(a));
  }
  m.weights_normalised = std::fabs(total - 1) > 1e-6;
  for (auto& a : m.apps) a.weight /= total;
  return m;
}

}  // namespace

Mix parse_mix(const std::string& text, const std::string& path) {
  try {
    return parse_mix_yaml(text, path);
  } catch (const YAML::Exception& e) {
    throw InputError(path + ":" + std::to_string(e.mark.line + 1), "not valid YAML (" + e.msg + ")");
  }
}

Mix load_mix(const std::string& path) { return parse_mix(safe_file::read_input_file(path, kMaxInputBytes), path); }

double workload_speedup(const std::vector<double>& w, const std::vector<double>& s) {
  double sum = 0;
  for (size_t i = 0; i < w.size(); ++i) sum += w[i] / s[i];  // w / inf = 0: an unbounded upper end
  return sum > 0 ? 1.0 / sum : INFINITY;
}

MixResult evaluate_mix(const Mix& mix, const std::vector<SystemSpec>& systems) {
  MixResult r;
  r.mix = &mix;
  for (const auto& a : mix.apps) r.emulated = r.emulated || a.model.emulated;
  for (const auto& sys : systems) {
    MixSystem ms;
    ms.system = sys;
    std::vector<double> w, s, lo, hi;
    for (const auto& a : mix.apps) {
      MixAppResult ar{a.name, a.weight, predict(a.model, sys), ""};
      ar.verdict = ar.pred.verdict;  // the model's, downgraded where this prediction extrapolates
      w.push_back(a.weight), s.push_back(ar.pred.speedup);
      lo.push_back(ar.pred.speedup_low), hi.push_back(ar.pred.speedup_high);
      if (ar.verdict == "unreliable")
        ms.warnings.push_back("application '" + a.name + "' has an UNRELIABLE model: the workload figure inherits it");
      for (const auto& x : ar.pred.warnings) ms.warnings.push_back(a.name + ": " + x);
      ms.apps.push_back(std::move(ar));
    }
    ms.speedup = workload_speedup(w, s);
    ms.speedup_low = workload_speedup(w, lo);
    ms.speedup_high = workload_speedup(w, hi);
    if (sys.nodes) {
      ms.throughput = ms.speedup * *sys.nodes / mix.baseline_nodes;
      if (sys.price) ms.per_price = *ms.throughput / *sys.price;
      if (sys.power_w) ms.per_watt = *ms.throughput / *sys.power_w;
    } else if (sys.price || sys.power_w) {
      ms.warnings.push_back("price and power_w need nodes to give throughput per price and per watt");
    }
    r.systems.push_back(std::move(ms));
  }
  std::stable_sort(r.systems.begin(), r.systems.end(),
                   [](const MixSystem& a, const MixSystem& b) { return a.speedup > b.speedup; });
  for (size_t i = 0; i + 1 < r.systems.size(); ++i)
    if (r.systems[i].speedup_low <= r.systems[i + 1].speedup_high)
      r.overlaps.push_back(r.systems[i].system.name + " and " + r.systems[i + 1].system.name);
  return r;
}

}  // namespace hpcsens::model
