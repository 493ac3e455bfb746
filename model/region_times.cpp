#include "model/region_times.h"

#include <algorithm>

#include "common/errors.h"
#include "model/dataset.h"

namespace hpcsens::model {

std::optional<RegionTime> region_time(const nlohmann::json& record, const std::string& name,
                                      const std::string& path) {
  if (!record.contains("ranks") || !record.at("ranks").is_array()) return std::nullopt;
  std::optional<RegionTime> out;
  const auto& ranks = record.at("ranks");
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const auto& rk = ranks[i];
    if (!rk.is_object() || !rk.contains("regions") || !rk.at("regions").is_object() ||
        !rk.at("regions").contains(name))
      continue;
    const std::string where =
        path + ": field 'ranks[" + std::to_string(i) + "].regions." + name + ".wall_s'";
    const auto& reg = rk.at("regions").at(name);
    if (!reg.is_object() || !reg.contains("wall_s") || !reg.at("wall_s").is_number())
      throw InputError(where, "missing or not a number");
    const double wall = reg.at("wall_s").get<double>();
    check_plausible(wall, kTimeSRange, where);
    if (!out) out = RegionTime{};
    out->rank_times[rk.value("rank", static_cast<int>(i))] = wall;
    out->time_s = std::max(out->time_s, wall);
  }
  return out;
}

std::set<std::string> region_names(const nlohmann::json& record) {
  std::set<std::string> names;
  if (!record.contains("ranks") || !record.at("ranks").is_array()) return names;
  for (const auto& rk : record.at("ranks"))
    if (rk.is_object() && rk.contains("regions") && rk.at("regions").is_object())
      for (const auto& [k, v] : rk.at("regions").items()) names.insert(k);
  return names;
}

}  // namespace hpcsens::model
