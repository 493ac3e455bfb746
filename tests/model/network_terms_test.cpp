// The network terms net_lat and net_bw (issue 21): model names, bases, identifiability, a fit of
// exact synthetic data recovering the known work, and the sentence in words.
#include <gtest/gtest.h>

#include <cmath>

#include "common/errors.h"
#include "model/fitter.h"
#include "model/identifiability.h"
#include "model/model_spec.h"
#include "model/rate_variation.h"
#include "model/sensitivity.h"

namespace hpcsens::model {
namespace {

TEST(NetworkTerms, ModelNamesAddNetworkTermsToNodeModels) {
  EXPECT_EQ(parse_model_spec("net_lat+net_bw+fixed").terms,
            (std::vector<Term>{Term::net_lat, Term::net_bw, Term::fixed}));
  EXPECT_EQ(parse_model_spec("net_bw+net_lat+fixed").name(), "net_lat+net_bw+fixed");
  EXPECT_EQ(parse_model_spec("cpu+mem+io+net_lat+net_bw").terms,
            (std::vector<Term>{Term::cpu, Term::mem, Term::io, Term::net_lat, Term::net_bw}));
  EXPECT_EQ(parse_model_spec("cpu+net_lat+fixed").terms, (std::vector<Term>{Term::cpu, Term::net_lat, Term::fixed}));
  EXPECT_EQ(one_rate_of(parse_model_spec("cpu+net_lat+fixed")), Rate::cpu_ghz);
  EXPECT_EQ(one_rate_of(parse_model_spec("net_lat+net_bw+fixed")), Rate::none);
  EXPECT_TRUE(has_network_term(parse_model_spec("net_bw+fixed")));
  EXPECT_FALSE(has_network_term(parse_model_spec("cpu+mem+io")));
  EXPECT_EQ(model_names().size(), 28u);  // 6 node models x 4 network choices, overlap, 3 network-only
  for (const char* bad : {"overlap+net_lat", "net_lat+net_lat+fixed", "net_lat", "cpu+net_foo+fixed"})
    EXPECT_THROW(parse_model_spec(bad), InputError) << bad;
}

TEST(NetworkTerms, BasesAreTimePerMessageAndPerByte) {
  Point p;
  p.cpu_ghz = 2, p.mem_gbs = 50, p.net_latency_us = 3.5, p.net_ns_per_byte = 0.25;
  EXPECT_DOUBLE_EQ(basis(Term::net_lat, p), 3.5);
  EXPECT_DOUBLE_EQ(basis(Term::net_bw, p), 0.25);
  // 2 M messages x 3.5 us + 4 GB x 0.25 ns/byte + 1 s = 7 + 1 + 1 s.
  EXPECT_DOUBLE_EQ(model_time(parse_model_spec("net_lat+net_bw+fixed"), {2, 4, 1}, p), 9.0);
  const auto g = model_gradient(parse_model_spec("net_lat+net_bw+fixed"), {2, 4, 1}, p);
  EXPECT_EQ(g, (std::vector<double>{3.5, 0.25, 1.0}));
  // Without the network's rates a network basis is not a number (the old three-rate form).
  EXPECT_TRUE(std::isnan(basis(Term::net_lat, 2.0, 50.0, std::nullopt)));
  EXPECT_STREQ(rate_name(Rate::net_latency_us), "net_latency_us");
  EXPECT_STREQ(rate_name(Rate::net_ns_per_byte), "net_ns_per_byte");
}

// A network sweep: latency added 0..400 us, bandwidth of the added link none, 0.25, 0.125 GB/s.
std::vector<Point> network_sweep(double w_msgs_m, double w_gb, double fixed) {
  std::vector<Point> pts;
  const double base_lat = 1.5, base_nspb = 0.1;
  for (auto [lat, bw] : {std::pair{0.0, 0.0}, {200.0, 0.0}, {400.0, 0.0}, {0.0, 0.25}, {0.0, 0.125}, {200.0, 0.25}}) {
    Point p;
    p.label = "l" + std::to_string(lat) + "b" + std::to_string(bw);
    p.cpu_ghz = 2.4, p.mem_gbs = 20 + 0.1 * double(pts.size());  // STREAM noise on an unswept rate
    p.net_latency_us = base_lat + lat;
    p.net_ns_per_byte = base_nspb + (bw > 0 ? 1 / bw : 0);
    p.time_s = w_msgs_m * *p.net_latency_us + w_gb * *p.net_ns_per_byte + fixed;
    pts.push_back(p);
  }
  return pts;
}

TEST(NetworkTerms, ExactDataOfANetworkSweepGivesBackItsWork) {
  const auto pts = network_sweep(0.0012, 0.059, 0.25);
  const ModelSpec spec = parse_model_spec("net_lat+net_bw+fixed");
  const auto id = check_identifiability(spec, pts);
  EXPECT_TRUE(id.ok()) << (id.errors.empty() ? "" : id.errors[0]);
  std::vector<double> times;
  for (const auto& p : pts) times.push_back(p.time_s);
  const FitResult f = fit_model(spec, pts, times, {});
  ASSERT_TRUE(f.converged) << f.message;
  EXPECT_NEAR(f.params[0], 0.0012, 0.0012 * 1e-6);
  EXPECT_NEAR(f.params[1], 0.059, 0.059 * 1e-6);
  EXPECT_NEAR(f.params[2], 0.25, 0.25 * 1e-6);
}

// Whether one of the errors contains every phrase (the errors' order is not part of the contract).
bool an_error_says(const IdentifiabilityReport& id, std::initializer_list<const char*> phrases) {
  for (const auto& e : id.errors) {
    bool all = true;
    for (const char* ph : phrases) all = all && e.find(ph) != std::string::npos;
    if (all) return true;
  }
  return false;
}

std::string all_errors(const IdentifiabilityReport& id) {
  std::string s;
  for (const auto& e : id.errors) s += e + "\n";
  return s;
}

TEST(NetworkTerms, IdentifiedOnlyWhenTheSweepVariedTheNetwork) {
  auto pts = network_sweep(0.001, 0.05, 0.2);
  for (auto& p : pts) p.net_latency_us = 1.5;  // the latency was never varied
  auto id = check_identifiability(parse_model_spec("net_lat+net_bw+fixed"), pts);
  ASSERT_FALSE(id.ok());
  EXPECT_TRUE(an_error_says(id, {"net_latency_us was not varied (all 1.5), so the 'net_lat' term cannot be told apart",
                                 "network latencies (knobs.network)"}))
      << all_errors(id);
  pts[2].net_ns_per_byte.reset();
  id = check_identifiability(parse_model_spec("net_bw+fixed"), pts);
  ASSERT_FALSE(id.ok());
  EXPECT_TRUE(an_error_says(id, {"needs the network rates of every configuration"})) << all_errors(id);
}

// The varied-rate rule of the other rates holds for the network's: a latency that only jittered
// between calibrations (3 % here, under the 5 % floor) is not a design that identifies net_lat.
// The rate is the measured latency (base + added), so a point with nothing added still has a
// finite, positive rate and the range hi/lo - 1 stays meaningful.
TEST(NetworkTerms, AJitteringNetworkIsNotVariedAndSaysSoInWords) {
  auto pts = network_sweep(0.001, 0.05, 0.2);
  for (size_t i = 0; i < pts.size(); ++i) pts[i].net_latency_us = 1.5 * (1 + 0.006 * double(i));
  const RateVariation v = rate_variation(Rate::net_latency_us, pts);
  ASSERT_TRUE(v.present);
  EXPECT_FALSE(v.varied);
  EXPECT_EQ(v.noise_from, "floor");
  EXPECT_DOUBLE_EQ(v.threshold, kNetNoiseFloor * kJitterFactor);
  const std::string note = held_constant_note(v);
  EXPECT_NE(note.find("net_latency_us moved only 3.0%"), std::string::npos) << note;
  EXPECT_NE(note.find("network latency was not varied by this sweep"), std::string::npos) << note;
  const auto id = check_identifiability(parse_model_spec("net_lat+net_bw+fixed"), pts);
  EXPECT_TRUE(an_error_says(id, {"net_latency_us moved only 3.0%", "within its measurement noise"})) << all_errors(id);
  // The bandwidth of the same sweep was varied by design (0.1 to 8.1 ns/byte).
  EXPECT_TRUE(rate_variation(Rate::net_ns_per_byte, pts).varied);
  // Repeated calibrations that spread by 4 % raise the bar to 12 %: a 10 % range is jitter.
  for (size_t i = 0; i < pts.size(); ++i) pts[i].net_latency_us = 10 * (1 + 0.02 * double(i)), pts[i].net_lat_spread = 0.04;
  const RateVariation r = rate_variation(Rate::net_latency_us, pts);
  EXPECT_EQ(r.noise_from, "repetitions");
  EXPECT_NEAR(r.threshold, 0.12, 1e-12);
  EXPECT_FALSE(r.varied);
}

TEST(NetworkTerms, TheSentenceSaysHalvingLatencyAndDoublingBandwidth) {
  const ModelSpec spec = parse_model_spec("net_lat+net_bw+fixed");
  Point b;
  b.cpu_ghz = 2, b.mem_gbs = 20, b.net_latency_us = 2, b.net_ns_per_byte = 0.5;
  // 1 M messages x 2 us = 2 s, 2 GB x 0.5 ns/B = 1 s, fixed 7 s: shares 20 % and 10 %.
  const auto es = elasticities(spec, {1, 2, 7}, {0.05, 0.1, 0.1}, b, 10.0);
  ASSERT_EQ(es.size(), 2u);
  EXPECT_DOUBLE_EQ(es[0].elasticity, 0.2);  // more latency, more time
  const std::string s = sensitivity_sentence(es, b);
  EXPECT_NE(s.find("halving network latency saves 10.0%"), std::string::npos) << s;
  EXPECT_NE(s.find("doubling network bandwidth saves 5.0%"), std::string::npos) << s;
}

}  // namespace
}  // namespace hpcsens::model
