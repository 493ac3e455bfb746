// Tidy CSV tables of the measurement fields (report/measure_csv.h): partners, message sizes and
// regions, one value per cell, from a record whose fields are known.
#include "report/measure_csv.h"

#include <gtest/gtest.h>

#include "record/run_record.h"
#include "report/record_output.h"

namespace hpcsens::report {
namespace {

using nlohmann::json;

std::string two_rank_record() {
  record::RunRecord rec;
  rec.job.nranks = 2;
  for (int k = 0; k < 2; ++k) {
    record::RankRecord r;
    r.rank = k;
    r.wall_s = 1;
    r.compute_s = 1;
    rec.ranks.push_back(r);
  }
  json j = record::to_json(rec);
  j["schema_minor"] = 2;
  j["ranks"][0]["partners"] = {{{"rank", 1}, {"bytes", 4096}, {"messages", 2}}};
  j["ranks"][0]["partners_other"] = {{"ranks", 3}, {"bytes", 100}, {"messages", 5}};
  j["ranks"][1]["partners"] = {{{"rank", 0}, {"bytes", 8}, {"messages", 1}}};
  j["ranks"][0]["msg_sizes"] = {{"MPI_Send", {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2}}};  // 2 x [4096, 8192)
  j["ranks"][1]["msg_sizes"] = {{"MPI_Send", {1, 0, 0, 0, 1}}};  // one empty, one [8, 16)
  j["ranks"][1]["regions"] = {{"solve", {{"count", 3}, {"wall_s", 0.5}, {"mpi_s", 0.25}, {"io_s", 0}}}};
  return j.dump();
}

TEST(MeasureCsv, PartnersOneRowPerDestination) {
  const RunScan s = scan_run_record_text(two_rank_record(), "r.json", 0);
  EXPECT_EQ(tidy_csv(s, parse_csv_table("partners")),
            "rank,partner,bytes,messages\n0,1,4096,2\n0,,100,5\n1,0,8,1\n");
}

TEST(MeasureCsv, MessageSizesOneRowPerNonEmptyBucket) {
  const RunScan s = scan_run_record_text(two_rank_record(), "r.json", 0);
  EXPECT_EQ(tidy_csv(s, parse_csv_table("msg_sizes")),
            "rank,call,bucket,size_min_bytes,size_max_bytes,messages\n"
            "0,MPI_Send,13,4096,8191,2\n1,MPI_Send,0,0,0,1\n1,MPI_Send,4,8,15,1\n");
}

TEST(MeasureCsv, RegionsOneRowPerRankAndRegion) {
  const RunScan s = scan_run_record_text(two_rank_record(), "r.json", 0);
  EXPECT_EQ(tidy_csv(s, parse_csv_table("regions")), "rank,region,count,wall_s,mpi_s,io_s\n1,solve,3,0.5,0.25,0\n");
}

}  // namespace
}  // namespace hpcsens::report
