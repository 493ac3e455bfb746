// The other nodes' energy as their counter agents hand it to the ranks (ranks[].node_energy):
// folded into the record's energy section, one object per host, the launch host's own reading
// kept (energy/sampler.h merge_rank_node_energy), and a snapshot that goes on sampling.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "energy/energy_totals.h"
#include "energy/sampler.h"
#include "fake_powercap.h"

namespace hpcsens::energy {
namespace {
using nlohmann::json;
using testing::FakePowercap;

json node(const std::string& host, double duration_s, double package_j, bool available = true) {
  json n = {{"host", host}, {"available", available}, {"source", "powercap"}};
  if (!available) {
    n["reason"] = "not available: no RAPL powercap zones under /x";
    return n;
  }
  n["duration_s"] = duration_s;
  n["joules_by_domain"] = {{"package", package_j}};
  return n;
}

json record_with(const json& launch_node, const std::vector<json>& rank_nodes) {
  json rec = {{"energy", energy_section({launch_node})}, {"ranks", json::array()}};
  rec["energy"]["slurm"] = {{"available", false}, {"reason", "not in an allocation"}};
  int rank = 0;
  for (const auto& n : rank_nodes) {
    json r = {{"rank", rank++}, {"host", n.is_object() ? n.value("host", "") : ""}};
    if (!n.is_null()) r[kRankNodeEnergy] = n;
    rec["ranks"].push_back(r);
  }
  return rec;
}

TEST(MergeRankNodeEnergy, EachOtherHostOnceTheLongestSpanAndTheLaunchHostKept) {
  json rec = record_with(node("node0", 10, 100),
                         {node("node0", 8, 70), node("node0", 8.5, 75), node("node1", 8, 60), node("node1", 9, 66),
                          node("node2", 7, 50)});
  merge_rank_node_energy(rec);
  const auto& nodes = rec.at("energy").at("nodes");
  ASSERT_EQ(nodes.size(), 3u) << nodes.dump();
  EXPECT_EQ(nodes[0].at("host"), "node0");
  EXPECT_EQ(nodes[0].at("duration_s"), 10) << "the launch host's own reading wins over its agent's";
  EXPECT_EQ(nodes[1].at("host"), "node1");
  EXPECT_EQ(nodes[1].at("duration_s"), 9) << "the node's last rank to stop covers the longest span";
  EXPECT_EQ(nodes[2].at("host"), "node2");
  for (const auto& r : rec.at("ranks")) EXPECT_FALSE(r.contains(kRankNodeEnergy)) << r;
  EXPECT_EQ(rec.at("energy").at("available"), true);
  EXPECT_EQ(rec.at("energy").at("slurm").at("reason"), "not in an allocation") << "Slurm's figure is kept";
  const Totals t = energy_totals(rec.at("energy"));
  EXPECT_EQ(t.nodes_measured, 3);
  EXPECT_DOUBLE_EQ(t.package_j, 100 + 66 + 50);
}

TEST(MergeRankNodeEnergy, AnAvailableReadingBeatsALongerUnavailableOneAndTheSectionBecomesAvailable) {
  json rec = record_with(node("node0", 0, 0, false), {node("node1", 50, 0, false), node("node1", 4, 40)});
  ASSERT_EQ(rec.at("energy").at("available"), false);
  merge_rank_node_energy(rec);
  const auto& e = rec.at("energy");
  ASSERT_EQ(e.at("nodes").size(), 2u);
  EXPECT_EQ(e.at("nodes")[1].at("available"), true);
  EXPECT_EQ(e.at("available"), true) << "one node measured is enough";
  EXPECT_FALSE(e.contains("reason")) << e.dump();
}

TEST(MergeRankNodeEnergy, NothingCarriedChangesNothingAndHostileValuesAreDropped) {
  json rec = record_with(node("node0", 10, 100), {json(), json()});
  const json before = rec;
  merge_rank_node_energy(rec);
  EXPECT_EQ(rec, before);
  json hostile = record_with(node("node0", 10, 100), {});
  hostile["ranks"] = json::array({{{kRankNodeEnergy, 3}}, {{kRankNodeEnergy, {{"host", 5}}}}, 7,
                                  {{kRankNodeEnergy, {{"available", true}}}}});
  merge_rank_node_energy(hostile);
  EXPECT_EQ(hostile.at("energy").at("nodes").size(), 1u);
  for (const auto& r : hostile.at("ranks"))
    if (r.is_object()) EXPECT_FALSE(r.contains(kRankNodeEnergy));
  json no_ranks = json::object();
  EXPECT_NO_THROW(merge_rank_node_energy(no_ranks));
}

TEST(BackgroundSampler, ASnapshotReadsNowAndSamplingGoesOn) {
  FakePowercap fake;
  fake.add_zone("intel-rapl:0", "package-0", 262143328850);
  BackgroundSampler sampler(fake.root());
  fake.advance("intel-rapl:0", 5000000);
  const json first = sampler.snapshot();
  EXPECT_DOUBLE_EQ(first.at("joules_by_domain").at("package").get<double>(), 5.0) << first.dump();
  fake.advance("intel-rapl:0", 2000000);
  const json second = sampler.snapshot();
  EXPECT_DOUBLE_EQ(second.at("joules_by_domain").at("package").get<double>(), 7.0);
  EXPECT_GE(second.at("duration_s").get<double>(), first.at("duration_s").get<double>());
  fake.advance("intel-rapl:0", 1000000);
  EXPECT_DOUBLE_EQ(sampler.stop().at("joules_by_domain").at("package").get<double>(), 8.0);
  EXPECT_EQ(sampler.snapshot(), sampler.stop()) << "after stop a snapshot is the final object";
}

}  // namespace
}  // namespace hpcsens::energy
