#pragma once
// A named region's times in a run record (ranks[].regions, written by the preload from
// hpcsens_region_begin/_end and MPI_Pcontrol phases), for fitting a model to one region.
#include <map>
#include <optional>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

namespace hpcsens::model {

struct RegionTime {
  double time_s = 0;                 // the run's time in the region: its slowest rank's wall_s
  std::map<int, double> rank_times;  // each rank's own region wall_s
};

// Region `name` of the record JSON read from `path`; nullopt when no rank has it. A malformed
// entry throws InputError naming the file and field (ranks[i].regions.NAME.wall_s).
std::optional<RegionTime> region_time(const nlohmann::json& record, const std::string& name,
                                      const std::string& path);
// Every region name any rank of the record has.
std::set<std::string> region_names(const nlohmann::json& record);

}  // namespace hpcsens::model
