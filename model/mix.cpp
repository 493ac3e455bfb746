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

// Two applications fitted from one model file are one application counted twice: say so.
void warn_shared_models(Mix& m) {
  for (size_t i = 0; i < m.apps.size(); ++i)
    for (size_t j = i + 1; j < m.apps.size(); ++j) {
      std::error_code ea, eb;
      const auto a = std::filesystem::weakly_canonical(m.apps[i].model_path, ea);
      const auto b = std::filesystem::weakly_canonical(m.apps[j].model_path, eb);
      if ((ea || eb) ? m.apps[i].model_path != m.apps[j].model_path : a != b) continue;
      m.warnings.push_back("applications '" + m.apps[i].name + "' and '" + m.apps[j].name + "' share one model file (" +
                           m.apps[i].model_path + "): they are projected as the same application; give each its "
                           "own model (hpcsens fit on its own sweep)");
    }
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
  warn_shared_models(m);
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

const char* rank_by_name(RankBy r) {
  switch (r) {
    case RankBy::speedup: return "speedup";
    case RankBy::throughput: return "throughput";
    case RankBy::per_price: return "per-price";
    case RankBy::per_watt: return "per-watt";
  }
  return "speedup";
}

RankBy parse_rank_by(const std::string& name) {
  for (RankBy r : kAllRankBy)
    if (name == rank_by_name(r)) return r;
  throw InputError("--rank-by", "'" + name + "' is not a criterion (use speedup, throughput, per-price or per-watt)");
}

std::optional<double> rank_factor(const MixSystem& s, RankBy r, double baseline_nodes) {
  if (r == RankBy::speedup) return 1.0;
  // Measured power: throughput / (nodes x power per node) = speedup / (baseline_nodes x power per node).
  if (r == RankBy::per_watt && s.node_power_w) return 1.0 / (baseline_nodes * *s.node_power_w);
  if (!s.system.nodes) return std::nullopt;
  const double per_node = *s.system.nodes / baseline_nodes;
  if (r == RankBy::throughput) return per_node;
  if (r == RankBy::per_price) return s.system.price ? std::optional<double>(per_node / *s.system.price) : std::nullopt;
  return s.system.power_w ? std::optional<double>(per_node / *s.system.power_w) : std::nullopt;
}

namespace {

const char* needs(RankBy r) {
  return r == RankBy::per_price ? "nodes and price"
         : r == RankBy::per_watt  ? "nodes and power_w (and not every application's model has a power model)"
                                  : "nodes";
}

// Best first by `by` (every system has its factor); neighbours whose intervals overlap.
void rank_systems(MixResult& r, RankBy by, double baseline_nodes) {
  auto value = [&](const MixSystem& s, double v) { return v * *rank_factor(s, by, baseline_nodes); };
  std::stable_sort(r.systems.begin(), r.systems.end(), [&](const MixSystem& a, const MixSystem& b) {
    return value(a, a.speedup) > value(b, b.speedup);
  });
  r.overlaps.clear();
  for (size_t i = 0; i + 1 < r.systems.size(); ++i)
    if (value(r.systems[i], r.systems[i].speedup_low) <= value(r.systems[i + 1], r.systems[i + 1].speedup_high))
      r.overlaps.push_back(r.systems[i].system.name + " and " + r.systems[i + 1].system.name);
}

// An application's warning reads "app: text": grouped by the text, with the applications and the
// systems it applies to, so nine EMULATED lines become one.
void group_warnings(MixResult& r) {
  auto add = [](std::vector<std::string>& list, const std::string& name) {
    if (std::find(list.begin(), list.end(), name) == list.end()) list.push_back(name);
  };
  for (const auto& s : r.systems)
    for (const auto& w : s.warnings) {
      std::string text = w, app;
      for (const auto& a : s.apps)
        if (w.rfind(a.name + ": ", 0) == 0) app = a.name, text = w.substr(a.name.size() + 2);
      auto at = std::find_if(r.warnings.begin(), r.warnings.end(), [&](const GroupedWarning& g) { return g.text == text; });
      if (at == r.warnings.end()) r.warnings.push_back({text, {}, {}}), at = r.warnings.end() - 1;
      add(at->systems, s.system.name);
      if (!app.empty()) add(at->applications, app);
    }
}

}  // namespace

MixResult evaluate_mix(const Mix& mix, const std::vector<SystemSpec>& systems, std::optional<RankBy> rank_by) {
  MixResult r;
  r.mix = &mix;
  for (const auto& a : mix.apps) r.emulated = r.emulated || a.model.emulated;
  for (const auto& sys : systems) {
    MixSystem ms;
    ms.system = sys;
    std::vector<double> w, s, lo, hi;
    for (const auto& a : mix.apps) {
      MixAppResult ar;
      ar.name = a.name, ar.weight = a.weight, ar.pred = predict(a.model, sys);
      ar.verdict = ar.pred.verdict;  // the model's, downgraded where this prediction extrapolates
      w.push_back(a.weight), s.push_back(ar.pred.speedup);
      lo.push_back(ar.pred.speedup_low), hi.push_back(ar.pred.speedup_high);
      if (ar.verdict == "unreliable")
        ms.warnings.push_back("application '" + a.name + "' has an UNRELIABLE model: the workload figure inherits it");
      for (const auto& x : ar.pred.warnings) ms.warnings.push_back(a.name + ": " + x);
      if (ar.verdict == "unreliable" || (ar.verdict == "caution" && ms.verdict == "ok")) ms.verdict = ar.verdict;
      ms.extrapolation = std::max(ms.extrapolation, ar.pred.extrapolation);
      ms.apps.push_back(std::move(ar));
    }
    ms.speedup = workload_speedup(w, s);
    ms.speedup_low = workload_speedup(w, lo);
    ms.speedup_high = workload_speedup(w, hi);
    if (sys.nodes) {
      ms.throughput = ms.speedup * *sys.nodes / mix.baseline_nodes;
      if (sys.price) ms.per_price = *ms.throughput / *sys.price;
    } else if (sys.price) {  // power_w: mix_power says it, where the nominal power is used
      ms.warnings.push_back("price needs nodes to give throughput per price");
    }
    r.systems.push_back(std::move(ms));
  }
  mix_power(mix, r);  // per watt from measured power where every application has a power model
  auto all_have = [&](RankBy by) {
    return std::all_of(r.systems.begin(), r.systems.end(),
                       [&](const MixSystem& s) { return rank_factor(s, by, mix.baseline_nodes).has_value(); });
  };
  if (rank_by && !all_have(*rank_by))
    for (const auto& s : r.systems)
      if (!rank_factor(s, *rank_by, mix.baseline_nodes))
        throw InputError("--rank-by " + std::string(rank_by_name(*rank_by)),
                         "system '" + s.system.name + "' gives no " + needs(*rank_by) +
                             " (add them to its system file, or rank by speedup)");
  for (RankBy by : kAllRankBy)
    if (all_have(by) && !r.systems.empty()) {
      rank_systems(r, by, mix.baseline_nodes);
      r.winners.push_back({by, r.systems.front().system.name});
    }
  r.rank_by = rank_by ? *rank_by : all_have(RankBy::throughput) ? RankBy::throughput : RankBy::speedup;
  rank_systems(r, r.rank_by, mix.baseline_nodes);
  group_warnings(r);
  r.answer = mix_answer(r);
  return r;
}

}  // namespace hpcsens::model
