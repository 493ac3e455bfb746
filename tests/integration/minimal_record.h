#pragma once
// The smallest run record a plain `hpcsens run` of one rank writes (no config.cpu_ghz or
// mem_gbs): what the CLI tests hand to report, fit and predict to see their words.
#include <filesystem>
#include <fstream>

#include "record/run_record.h"

namespace hpcsens::testing {

inline void write_minimal_record(const std::filesystem::path& path) {
  record::RunRecord rec;
  rec.job.nranks = 1;
  rec.job.command = {"./app"};
  record::RankRecord r;
  r.wall_s = 1, r.compute_s = 1;
  rec.ranks.push_back(r);
  rec.timing.job_s = 1;
  std::ofstream(path) << record::to_json(rec).dump();
}

}  // namespace hpcsens::testing
