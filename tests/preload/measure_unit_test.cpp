// Pure parts of the issue-11 measurements: histogram buckets, the partner table and its report,
// the per-rank byte budget, regions and phases, and the streamed record (read back by the
// record module's own reader).
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "preload/account/accounting.h"
#include "preload/io/fd_track.h"
#include "preload/rank_record/msg_report.h"
#include "preload/rank_record/record_stream.h"
#include "preload/rank_record/regions.h"
#include "record/run_record.h"
#include "report/measure_section.h"

namespace hpcsens::preload {
namespace {

// The range end is where a file stops being tracked and becomes a counted drop: an mpirun test
// cannot reach 2^20 descriptors without CAP_SYS_RESOURCE and a raised fs.nr_open.
TEST(FdSet, TracksUpToTheRangeEndAndRefusesBeyondIt) {
  static hpcsens::preload::FdSet set;  // 128 KiB: static, as in the preload
  constexpr int last = hpcsens::preload::kMaxTrackedFd - 1;
  EXPECT_TRUE(set.add(65600));
  EXPECT_TRUE(set.add(last));
  EXPECT_TRUE(set.has(65600));
  EXPECT_TRUE(set.has(last));
  EXPECT_FALSE(set.add(last + 1));  // the caller counts this file as a drop
  EXPECT_FALSE(set.has(last + 1));
  set.remove(last);
  EXPECT_FALSE(set.has(last));
  EXPECT_TRUE(set.has(65600));
}

TEST(MsgStats, Log2BucketsMatchTheRecordFormat) {
  EXPECT_EQ(size_bucket(0), 0);
  EXPECT_EQ(size_bucket(1), 1);
  EXPECT_EQ(size_bucket(2), 2);
  EXPECT_EQ(size_bucket(3), 2);
  EXPECT_EQ(size_bucket(1023), 10);
  EXPECT_EQ(size_bucket(1024), 11);
  EXPECT_EQ(size_bucket(~0ull), kHistBuckets - 1);
}

TEST(MsgStats, PartnerTableCountsOverflowInsteadOfLosingIt) {
  auto t = std::make_unique<PartnerTable>();
  for (int r = 0; r < kPartnerSlots + 10; ++r) t->add(r, 100);
  t->add(5, 50);
  std::uint64_t tracked = 0;
  for (const auto& e : t->entries) tracked += e.messages;
  EXPECT_EQ(tracked, static_cast<std::uint64_t>(kPartnerSlots) + 1);
  EXPECT_EQ(t->untracked_messages, 10u);
  EXPECT_EQ(t->untracked_bytes, 1000u);
}

TEST(MsgReport, TopPartnersAndOtherBucket) {
  auto slot = std::make_unique<ThreadCounts>();
  for (int r = 0; r < 100; ++r) slot->partners.add(r, static_cast<std::uint64_t>(r) * 10 + 1);
  slot->partners.add(99, 9);  // rank 99: 1000 bytes, 2 messages
  const ThreadCounts* slots[] = {slot.get()};
  const MergedMessages m = merge_messages(slots, 1);
  nlohmann::json j = nlohmann::json::object();
  add_partners(m, j);
  ASSERT_EQ(j["partners"].size(), 64u);
  EXPECT_EQ(j["partners"][0], nlohmann::json({{"rank", 99}, {"bytes", 1000}, {"messages", 2}}));
  EXPECT_EQ(j["partners"][63]["rank"], 36);
  // Ranks 0..35: 36 ranks, bytes sum(10 r + 1) = 10 * 630 + 36.
  EXPECT_EQ(j["partners_other"], nlohmann::json({{"ranks", 36}, {"bytes", 6336}, {"messages", 36}}));
}

TEST(MsgReport, BudgetDropsTheLargestPartsAndSaysSo) {
  nlohmann::json r = {{"rank", 0}, {"mpi_s", 1.0}, {"partners", std::string(5000, 'x')},
                      {"partners_other", 1}, {"msg_sizes", std::string(3000, 'y')}};
  std::string text = fit_to_budget(r, 100000);
  EXPECT_FALSE(r.contains("truncated"));
  text = fit_to_budget(r, 4000);
  EXPECT_LE(text.size(), 4000u);
  EXPECT_FALSE(r.contains("partners"));
  EXPECT_FALSE(r.contains("partners_other"));
  EXPECT_TRUE(r.contains("msg_sizes"));
  EXPECT_EQ(r["truncated"], true);
}

TEST(Regions, NestingPhasesAndCountedDrops) {
  reset_regions();
  EXPECT_FALSE(region_begin("early", 5));  // before MPI_Init
  g_counting.store(true);
  EXPECT_TRUE(region_begin("solve", 5));
  EXPECT_TRUE(region_begin("inner", 5));
  EXPECT_FALSE(region_end("solve", 5));  // not the innermost
  EXPECT_TRUE(region_end("inner", 5));
  EXPECT_TRUE(region_end("solve", 5));
  pcontrol_phase(1);
  pcontrol_phase(0);
  pcontrol_phase(1);
  EXPECT_TRUE(region_begin("left-open", 9));
  close_open_regions();
  g_counting.store(false);
  std::map<std::string, std::uint64_t> counts;
  for (const auto& r : region_results(1e-9)) counts[r.name] = r.count;
  EXPECT_EQ(counts, (std::map<std::string, std::uint64_t>{
                        {"solve", 1}, {"inner", 1}, {"pcontrol:1", 2}, {"pcontrol:0", 1},
                        {"left-open", 1}}));
  EXPECT_EQ(region_drops(), 2u);
  reset_regions();
}

TEST(RecordStream, StreamedRecordReadsBackWithTimingAndImbalance) {
  char tmpl[] = "/tmp/hpcsens-stream-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = std::string(tmpl) + "/sub";
  RecordStream s;
  ASSERT_EQ(s.open(dir, "r"), "");
  for (int i = 0; i < 3; ++i) {
    record::RankRecord r;
    r.rank = i;
    r.host = "h";
    r.t0 = 0, r.t1 = 1, r.t2 = 11 + i, r.t3 = 14;
    r.wall_s = 10 + i, r.mpi_s = 1, r.compute_s = 9 + i;
    if (i == 2) r.counters_status = "no PMU";
    nlohmann::json j = record::to_json(r);
    j["partners"] = nlohmann::json::array({{{"rank", 0}, {"bytes", 8}, {"messages", 1}}});
    const std::string text = j.dump();
    RankHeader h = header_of(r, text.size());
    h.region_drops = 1;
    ASSERT_EQ(s.add(h, text), "");
  }
  // Not before it is complete: only the hidden temporary exists.
  for (const auto& e : std::filesystem::directory_iterator(dir)) EXPECT_EQ(e.path().filename().string()[0], '.');
  ASSERT_EQ(s.finish({{"mpirun", "./a"}, "openmpi", "lib", "t"}, {{"preload", {{"drops", s.drops()}}}}), "");
  // Under a fresh name "r.<16 hex>.json" (docs/record-format.md, "File names"), reported by path().
  const std::string path = s.path();
  EXPECT_EQ(std::filesystem::path(path).parent_path(), dir);
  EXPECT_EQ(std::filesystem::path(path).filename().string().size(), std::string("r.0123456789abcdef.json").size());
  const record::RunRecord run = record::load_run_record(path);
  EXPECT_EQ(run.job.nranks, 3);
  EXPECT_EQ(run.job.hosts, std::vector<std::string>{"h"});
  EXPECT_EQ(run.counters_status, "rank 2: no PMU");
  EXPECT_DOUBLE_EQ(run.timing.job_s, 14.0);
  ASSERT_TRUE(run.timing.job_sync_s.has_value());
  EXPECT_DOUBLE_EQ(*run.timing.job_sync_s, 12.0);
  EXPECT_DOUBLE_EQ(run.imbalance.max_s, 11.0);
  std::ifstream in(path);
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_EQ(j["schema_minor"], 2);
  EXPECT_EQ(j["ranks"][1]["partners"][0]["bytes"], 8);
  EXPECT_EQ(j["preload"]["drops"]["region_errors"], 3);
  std::filesystem::remove_all(tmpl);
}

}  // namespace
}  // namespace hpcsens::preload

namespace hpcsens::report {
namespace {

TEST(MeasureSection, AggregatesTheNewFieldsOverRanks) {
  char tmpl[] = "/tmp/hpcsens-section-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string path = std::string(tmpl) + "/r.json";
  nlohmann::json rec = {{"schema", "hpcsens.run.v1"}, {"ranks", nlohmann::json::array()}};
  for (int r = 0; r < 2; ++r)
    rec["ranks"].push_back(
        {{"rank", r},
         {"io", {{"stdio", {{"calls", 3}, {"seconds", 0.5}, {"bytes", 100}}}}},
         {"msg_sizes", {{"MPI_Send", {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2}}}},
         {"partners", {{{"rank", 1 - r}, {"bytes", 1000 * (r + 1)}, {"messages", 2}}}},
         {"partners_other", {{"ranks", 0}, {"bytes", 0}, {"messages", 0}}},
         {"regions", {{"solve", {{"count", 2}, {"wall_s", 1.0 + r}, {"mpi_s", 0.5}, {"io_s", 0.0}}}}}});
  std::ofstream(path) << rec.dump();
  const std::string text = render_measure_section(path, Format::kCsv);
  EXPECT_NE(text.find("stdio,6,1.000000,200"), std::string::npos) << text;
  EXPECT_NE(text.find("MPI_Send,4,\"[512 B, 1 KiB): 4\""), std::string::npos) << text;
  // Whole lines: the sender is the rank whose object lists the partner ("partners" precedes
  // "rank" in the object), heaviest pair first.
  ASSERT_NE(text.find("\n1,0,2000,2\n"), std::string::npos) << text;
  EXPECT_LT(text.find("\n1,0,2000,2\n"), text.find("\n0,1,1000,2\n")) << text;
  EXPECT_NE(text.find("solve,2,4,1.500000,2.000000,0.500000,0.000000"), std::string::npos) << text;
  rec["ranks"] = nlohmann::json::array({{{"rank", 0}}});
  std::ofstream(path) << rec.dump();
  EXPECT_EQ(render_measure_section(path, Format::kTable), "");
  std::filesystem::remove_all(tmpl);
}

}  // namespace
}  // namespace hpcsens::report
