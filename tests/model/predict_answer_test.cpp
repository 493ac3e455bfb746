// The one answer of a prediction and of a mix (model/predict_answer.h): a headline never more
// confident than the winner's own projection, caveats said once, advice that fixes the cause with
// the figure behind it. Fixtures: models fitted to a known truth on the acceptance grid
// (1.2-3 GHz x 15-60 GB/s), candidates inside and far outside it.
#include <gtest/gtest.h>

#include "common/errors.h"
#include "model/analysis.h"
#include "model/fit_output.h"
#include "model/mix.h"
#include "model/predict.h"
#include "model/predict_answer.h"
#include "tests/model/ground_truth.h"

namespace hpcsens::model {
namespace {

ModelReport fitted(const testing::Truth& truth) {
  Dataset d;
  d.points = testing::generate_points(truth, testing::acceptance_grid(), {0.01, 3, 1});
  return analyze(d, {});
}

SystemSpec sys(const std::string& name, double cpu, double mem) {
  SystemSpec s;
  s.name = name, s.cpu_ghz = cpu, s.mem_gbs = mem;
  return s;
}

std::vector<Prediction> ranked(const ModelReport& m, const std::vector<SystemSpec>& systems) {
  std::vector<Prediction> out;
  for (const auto& s : systems) out.push_back(predict(m, s));
  rank_predictions(out);
  return out;
}

bool any_has(const std::vector<std::string>& v, const std::string& words) {
  for (const auto& x : v)
    if (x.find(words) != std::string::npos) return true;
  return false;
}

// The demo's contradiction: the winner at 4x the measured bandwidth read "runs fastest" under a
// green badge, with "more repetitions" as the advice.
TEST(PredictionAnswer, AnExtrapolatedWinnerSaysSoAndTheAdviceIsToMeasureNearer) {
  const ModelReport m = fitted({24.0, 600.0, 3.0});
  ASSERT_EQ(m.verdict.word, "ok");
  const auto preds = ranked(m, {sys("inside", 3.0, 60), sys("far-mem", 3.0, 240)});
  ASSERT_EQ(preds[0].system.name, "far-mem");
  ASSERT_EQ(preds[0].verdict, "unreliable");
  const Answer a = prediction_answer(m, preds, "app.model.json");
  EXPECT_EQ(a.tone, "bad");
  EXPECT_EQ(a.headline.find("runs fastest"), std::string::npos) << a.headline;
  EXPECT_NE(a.headline.find("far-mem"), std::string::npos) << a.headline;
  EXPECT_NE(a.headline.find("but that projection is unreliable: it is extrapolated (mem_gbs 240 GB/s is 4.00x beyond "
                            "the measured 15 to 60 GB/s)"),
            std::string::npos)
      << a.headline;
  EXPECT_NE(a.headline.find("Of the projections inside the measured rates, inside is fastest"), std::string::npos)
      << a.headline;
  ASSERT_FALSE(a.advice.empty());
  EXPECT_NE(a.advice[0].text.find("Measure nearer far-mem's mem_gbs"), std::string::npos) << a.advice[0].text;
  EXPECT_NE(a.advice[0].text.find("at or above 192 GB/s"), std::string::npos) << a.advice[0].text;  // 240 / 1.25
  EXPECT_EQ(a.advice[0].figure, "far-mem: mem_gbs 240 GB/s is 4.00x beyond the measured 15 to 60 GB/s");
  for (const auto& x : a.advice) EXPECT_EQ(x.text.find("repetitions"), std::string::npos) << x.text;
  EXPECT_TRUE(any_has(a.caveats, "The ranking rests on extrapolated predictions (far-mem)"));
  // Every format renders that one object.
  const std::string text = render_predictions(m, preds, "table", "app.model.json");
  EXPECT_EQ(text.find(answer_text(a)), 0u) << text;
  EXPECT_NE(render_predictions(m, preds, "md").find(answer_markdown(a)), std::string::npos);
  const auto j = nlohmann::json::parse(render_predictions(m, preds, "json", "app.model.json"));
  EXPECT_EQ(j["answer"], answer_json(a));
  EXPECT_EQ(j["answer"]["advice"][0]["figure"], a.advice[0].figure);
  EXPECT_TRUE(j["ranking_extrapolated"].get<bool>());
}

TEST(PredictionAnswer, AWinnerInsideTheMeasuredRatesRunsFastestWithAnOkTone) {
  const ModelReport m = fitted({24.0, 600.0, 3.0});
  const auto preds = ranked(m, {sys("slow", 1.5, 20), sys("fast", 2.8, 55)});
  const Answer a = prediction_answer(m, preds, "");
  EXPECT_EQ(a.tone, "ok");
  EXPECT_EQ(a.headline.rfind("The application runs fastest, in ", 0), 0u) << a.headline;
  EXPECT_NE(a.headline.find("on fast"), std::string::npos) << a.headline;
  EXPECT_NE(a.headline.find("The ranking holds across the fit intervals."), std::string::npos) << a.headline;
  EXPECT_TRUE(a.advice.empty());
}

// A winner 1.3x beyond the measured clock is one step down (caution): the headline says so in words.
TEST(PredictionAnswer, AWinnerJudgedCautionIsToBeReadWithCaution) {
  const ModelReport m = fitted({24.0, 600.0, 3.0});
  const auto preds = ranked(m, {sys("inside", 2.0, 40), sys("near", 3.9, 40)});
  ASSERT_EQ(preds[0].system.name, "near");
  ASSERT_EQ(preds[0].verdict, "caution");
  const Answer a = prediction_answer(m, preds, "");
  EXPECT_EQ(a.tone, "caution");
  EXPECT_NE(a.headline.find("but that projection is to be read with caution: it is extrapolated (cpu_ghz 3.9 GHz is "
                            "1.30x beyond the measured 1.2 to 3 GHz)"),
            std::string::npos)
      << a.headline;
  EXPECT_NE(a.headline.find("Of the projections inside the measured rates, inside is fastest"), std::string::npos);
}

// A CPU/memory model given interconnect candidates: one caveat, not silent identical rows; the
// rate columns show what the user typed, in GB/s.
TEST(PredictionAnswer, AModelWithoutNetworkTermsSaysSoOnceForInterconnectCandidates) {
  const ModelReport m = fitted({24.0, 600.0, 3.0});
  SystemSpec a = sys("ib-hdr", 3.0, 60), b = sys("eth-100g", 3.0, 60);
  a.net_latency_us = 1.0, a.net_bandwidth_gbs = 25;
  b.net_latency_us = 5.0, b.net_bandwidth_gbs = 12.5;
  const auto preds = ranked(m, {a, b});
  EXPECT_DOUBLE_EQ(preds[0].predicted_s, preds[1].predicted_s);
  const Answer ans = prediction_answer(m, preds, "");
  int said = 0;
  for (const auto& c : ans.caveats)
    if (c.find("has no term for") != std::string::npos) {
      ++said;
      EXPECT_EQ(c, "Model 'cpu+mem+io' has no term for net_bandwidth_gbs and net_latency_us: the values given for "
                   "ib-hdr and eth-100g change nothing in their projections.");
    }
  EXPECT_EQ(said, 1);
  const std::string table = render_predictions(m, preds, "table");
  EXPECT_NE(table.find("net_bandwidth_gbs (not in model)"), std::string::npos) << table;
  EXPECT_NE(table.find("12.5"), std::string::npos) << table;  // as typed, not 0.08 ns per byte
  EXPECT_EQ(table.find("net_ns_per_byte"), std::string::npos) << table;
}

// A network sweep (latency added 0-400 us, the link's bandwidth cut to 0.25 and 0.125 GB/s) fitted
// as net_lat+fixed and net_lat+net_bw+fixed: exact times from known work.
ModelReport network_model(const std::string& name) {
  Dataset d;
  for (auto [lat, bw] : {std::pair{0.0, 0.0}, {200.0, 0.0}, {400.0, 0.0}, {0.0, 0.25}, {0.0, 0.125}, {200.0, 0.25},
                         {400.0, 0.125}}) {
    Point p;
    p.label = "l" + std::to_string(int(lat)) + "b" + std::to_string(bw);
    p.cpu_ghz = 2.4, p.mem_gbs = 20;
    p.net_latency_us = 1.5 + lat;
    p.net_ns_per_byte = 0.1 + (bw > 0 ? 1 / bw : 0);
    p.time_s = 0.002 * *p.net_latency_us + (name == "net_lat+fixed" ? 0.0 : 0.5 * *p.net_ns_per_byte) + 3.0;
    p.min_s = p.max_s = p.time_s;
    d.points.push_back(p);
  }
  AnalyzeOptions o;
  o.model = name;
  return analyze(d, o);
}

// A system file that changes only the network: the node's rates come from the baseline (not
// "field 'cpu_ghz': missing"), a net_lat+fixed model needs no bandwidth, and the columns are the
// rates the user typed, bandwidth in GB/s.
TEST(PredictionRates, ANetworkOnlyCandidateNeedsOnlyTheRatesTheModelHasTermsFor) {
  const auto systems = parse_systems("systems:\n  - {name: fast-net, net_latency_us: 1.0}\n"
                                     "  - {name: fat-net, net_latency_us: 1.5, net_bandwidth_gbs: 20}\n",
                                     "net.yaml");
  const ModelReport lat = network_model("net_lat+fixed");
  ASSERT_EQ(lat.spec.name(), "net_lat+fixed");
  const Prediction p = predict(lat, systems[0]);
  EXPECT_NEAR(p.predicted_s, 0.002 * 1.0 + 3.0, 1e-6);
  EXPECT_DOUBLE_EQ(p.system.cpu_ghz, 2.4);  // the baseline's, not 0
  const std::string table = render_predictions(lat, {p}, "table");
  EXPECT_NE(table.find("net_latency_us"), std::string::npos) << table;
  EXPECT_EQ(table.find("cpu_ghz"), std::string::npos) << "a rate neither used nor given has no column:\n" << table;
  const ModelReport both = network_model("net_lat+net_bw+fixed");
  try {
    predict(both, systems[0]);
    FAIL() << "net_lat+net_bw+fixed has a bandwidth term";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("net.yaml:2: field 'net_bandwidth_gbs': missing"), std::string::npos)
        << e.what();
  }
  const Prediction q = predict(both, systems[1]);
  EXPECT_NEAR(q.predicted_s, 0.002 * 1.5 + 0.5 / 20 + 3.0, 1e-6);
  const std::string bw = render_predictions(both, {q}, "table");
  EXPECT_NE(bw.find("net_bandwidth_gbs"), std::string::npos) << bw;
  EXPECT_EQ(bw.find("net_ns_per_byte"), std::string::npos) << bw;
  const auto j = nlohmann::json::parse(render_predictions(both, {q}, "json"));
  EXPECT_EQ(j["rates"][1]["name"], "net_bandwidth_gbs");
  EXPECT_EQ(j["rates"][1]["unit"], "GB/s");
  EXPECT_DOUBLE_EQ(j["predictions"][0]["rates"][1]["value"].get<double>(), 20.0);
}

TEST(MixAnswer, AWinnerRestingOnAnExtrapolatedApplicationSaysSoInTheHeadline) {
  Mix mix;
  mix.path = "mix.yaml";
  mix.apps.push_back({"solver", "solver.model.json", "mix.yaml:2", 1.0, fitted({24.0, 600.0, 3.0})});
  const MixResult r = evaluate_mix(mix, {sys("hbm", 3.0, 240), sys("ddr", 3.0, 55)});
  ASSERT_EQ(r.systems.front().system.name, "hbm");
  EXPECT_EQ(r.systems.front().verdict, "unreliable");
  EXPECT_DOUBLE_EQ(r.systems.front().extrapolation, 4.0);
  EXPECT_EQ(r.answer.tone, "bad");
  EXPECT_NE(r.answer.headline.find("Ranked by speedup, hbm wins"), std::string::npos) << r.answer.headline;
  EXPECT_NE(r.answer.headline.find("but that rests on unreliable projections: solver is extrapolated (mem_gbs 240 "
                                   "GB/s is 4.00x beyond"),
            std::string::npos)
      << r.answer.headline;
  EXPECT_TRUE(any_has(r.answer.caveats, "The ranking rests on extrapolated predictions (hbm/solver)"));
  ASSERT_FALSE(r.answer.advice.empty());
  EXPECT_NE(r.answer.advice[0].text.find("Measure application 'solver' nearer hbm's mem_gbs"), std::string::npos)
      << r.answer.advice[0].text;
  // The table, Markdown and JSON carry that very object.
  EXPECT_NE(render_mix(r, "table").find(answer_text(r.answer)), std::string::npos);
  EXPECT_NE(render_mix(r, "md").find(answer_markdown(r.answer)), std::string::npos);
  const auto j = nlohmann::json::parse(render_mix(r, "json"));
  EXPECT_EQ(j["answer"], answer_json(r.answer));
  EXPECT_EQ(j["systems"][0]["verdict"], "unreliable");
  EXPECT_TRUE(j["ranking_extrapolated"].get<bool>());
}

}  // namespace
}  // namespace hpcsens::model
