// Verdicts that need evidence, parsimony in model choice, intervals that widen when the model is
// wrong, and extrapolation as judgement (issue 16 items 2-5). Truth known: ground_truth.h.
#include <gtest/gtest.h>

#include <regex>

#include <algorithm>
#include <cmath>

#include "model/analysis.h"
#include "model/fit_output.h"
#include "model/predict.h"
#include "model/validation.h"
#include "model/verdict.h"
#include "tests/model/ground_truth.h"
#include "tests/model/text_match.h"

namespace hpcsens::model {
namespace {

using testing::Config;
using testing::NoiseSpec;
using testing::Truth;

using testing::any_contains;
using testing::joined;

SystemSpec system(const std::string& name, double cpu_ghz, double mem_gbs) {
  SystemSpec s;
  s.name = name, s.cpu_ghz = cpu_ghz, s.mem_gbs = mem_gbs;
  return s;
}

Verdict judged(double mape, double loocv, int distinct, int params) {
  Diagnostics d;
  d.mape = mape, d.loocv_mape = loocv, d.slope = 1, d.r2 = 0.99;
  VerdictInput in;
  in.diag = &d;
  in.points = static_cast<size_t>(distinct);
  in.distinct = distinct, in.params = params;
  return judge(in);
}

TEST(VerdictRules, TooFewDegreesOfFreedomIsNeverOk) {
  const Verdict v = judged(0.005, 0.006, 5, 3);
  EXPECT_EQ(v.word, "caution");
  EXPECT_TRUE(any_contains(v.reasons, "2 degree(s) of freedom")) << joined(v.reasons);
  EXPECT_EQ(judged(0.005, 0.006, 6, 3).word, "ok");
}

TEST(VerdictRules, LoocvThresholdsAndRatioToInSampleError) {
  EXPECT_EQ(judged(0.01, 0.25, 12, 2).word, "unreliable");
  const Verdict ten = judged(0.01, 0.12, 12, 2);
  EXPECT_EQ(ten.word, "caution");
  EXPECT_TRUE(any_contains(ten.reasons, "above 10.0%")) << joined(ten.reasons);
  // 12 points, 2 parameters: a correct model loses about 12/10 = 1.2x; 2 x 1.2 x 1 % = 2.4 % < 4 %.
  const Verdict ratio = judged(0.01, 0.04, 12, 2);
  EXPECT_EQ(ratio.word, "caution");
  EXPECT_TRUE(any_contains(ratio.reasons, "leans on individual configurations")) << joined(ratio.reasons);
  EXPECT_EQ(judged(0.01, 0.02, 12, 2).word, "ok");
  EXPECT_EQ(judged(0.004, 0.015, 12, 2).word, "ok") << "below the 2 % floor the ratio is noise";
}

// "Why" case 3: a 5-point two-rate design fitted with 3 terms, in-sample error ~3 %, LOOCV ~10 %.
TEST(VerdictRules, FivePointThreeTermFitWithLargeLoocvIsNotOk) {
  const std::vector<Config> cfg{{1.2, 60}, {3.0, 60}, {1.2, 120}, {3.0, 120}, {2.0, 90}};
  Truth t;
  t.w_cpu = 24, t.w_mem = 600, t.t_io = 2;
  NoiseSpec n;
  n.rel_sigma = 0.04, n.seed = 5;
  AnalyzeOptions o;
  o.model = "cpu+mem+io";
  const ModelReport m = analyze(assemble(testing::generate(t, cfg, n)), o);
  EXPECT_NE(m.verdict.word, "ok") << "MAPE " << m.diag.mape << " LOOCV " << m.diag.loocv_mape;
  EXPECT_TRUE(any_contains(m.verdict.reasons, "degree(s) of freedom")) << joined(m.verdict.reasons);
}

TEST(VerdictRules, ResidualTrendAgainstAVariedRateNamesTheRateAndCause) {
  Diagnostics d;
  d.mape = 0.03, d.loocv_mape = 0.035, d.slope = 1, d.r2 = 0.99;
  VerdictInput in;
  in.diag = &d;
  in.points = 24, in.distinct = 24, in.params = 3;
  ResidualTrend tr;
  tr.rate = "cpu_ghz", tr.r = 0.8, tr.significant = tr.strong = true;
  in.trends.push_back(tr);
  const Verdict v = judge(in);
  EXPECT_EQ(v.word, "caution");
  EXPECT_TRUE(any_contains(v.reasons, "trend with cpu_ghz")) << joined(v.reasons);
  EXPECT_TRUE(any_contains(v.reasons, "core clock")) << joined(v.reasons);
}

TEST(VerdictRules, CurvatureInTheCoreClockResponseIsCaughtEndToEnd) {
  testing::MisspecTruth t;
  t.w_cpu = 5, t.w_curve = 30, t.w_mem = 200, t.t_io = 0;
  const auto cfg = testing::grid({1.0, 1.4, 1.8, 2.2, 2.6, 3.0}, {15, 30, 45, 60});
  Dataset d;
  d.points = testing::misspec_points(t, cfg, 0.002, 0.0, 3);
  AnalyzeOptions o;
  o.model = "cpu+mem";
  const ModelReport m = analyze(d, o);
  EXPECT_NE(m.verdict.word, "ok") << joined(m.verdict.reasons) << " MAPE " << m.diag.mape;
  EXPECT_TRUE(any_contains(m.verdict.reasons, "trend with cpu_ghz")) << joined(m.verdict.reasons);
}

TEST(VerdictRules, TermWhoseRateRangeIsTooNarrowIsUnreliable) {
  std::vector<Point> pts;
  for (double c : {1.2, 1.8, 2.4, 3.0})
    for (double m : {100.0, 104.0, 107.0}) {
      Point p;
      p.cpu_ghz = c, p.mem_gbs = m, p.time_s = 24 / c + 300 / m;
      pts.push_back(p);
    }
  const auto why = term_effect_problems(parse_model_spec("cpu+mem"), {24, 300}, pts, pts.back().time_s, 0.01);
  ASSERT_EQ(why.size(), 2u);
  EXPECT_TRUE(why[0].empty()) << why[0];
  EXPECT_NE(why[1].find("the 'mem' term is unreliable"), std::string::npos) << why[1];
  // A wide range but a term too small to move the time beyond the noise: also undetermined.
  const auto tiny = term_effect_problems(parse_model_spec("cpu+mem"), {24, 0.5}, testing::generate_points({24, 0.5},
                                         testing::acceptance_grid(), {0.0}), 8.0, 0.01);
  EXPECT_NE(tiny[1].find("cannot be told apart from noise"), std::string::npos) << tiny[1];
}

// Parsimony: ten points of a two-rate design whose truth has no overlap and no fixed time. The
// 4-parameter overlap model must never win by fitting noise; cpu+mem+io (whose io must also be 2
// standard errors above zero, a false pick in about 1 of 20 draws) at most 2 of 20, as in
// FitRecovery.AutoKeepsCpuMemWhenThereIsNoFixedTime.
TEST(Parsimony, LargerModelsDoNotWinByFittingNoise) {
  const auto cfg = testing::grid({1.2, 1.6, 2.0, 2.4, 3.0}, {30, 60});
  int larger = 0, overlap = 0;
  std::string winners;
  for (unsigned seed = 1; seed <= 20; ++seed) {
    NoiseSpec n;
    n.rel_sigma = 0.01, n.seed = seed;
    const ModelReport m = analyze(assemble(testing::generate({24, 300}, cfg, n)), {});
    if (m.spec.name() != "cpu+mem") ++larger, winners += "seed " + std::to_string(seed) + ": " + m.selection_reason + "\n";
    overlap += m.spec.name() == "overlap";
    if (seed == 1) {
      EXPECT_NE(m.selection_reason.find("standard error"), std::string::npos) << m.selection_reason;
    }
  }
  EXPECT_EQ(overlap, 0) << winners;
  EXPECT_LE(larger, 2) << "a larger model won in " << larger << " of 20 noise draws\n" << winners;
}

TEST(Parsimony, OneRateDataNeverOffersOverlap) {
  std::vector<Config> cfg;
  for (int i = 0; i < 10; ++i) cfg.push_back({1.2 + 0.2 * i, 100.0});
  NoiseSpec n;
  n.mem_jitter = 0.015, n.rel_sigma = 0.01;
  const ModelReport m = analyze(assemble(testing::generate({24, 300}, cfg, n)), {});
  EXPECT_EQ(m.spec.name(), "cpu+fixed");
  for (const auto& c : m.candidates) EXPECT_NE(c.model, "overlap");
}

// A correct model: the jackknife interval covers the truth; a misspecified one: it is wider than
// the covariance interval of a model assumed right.
TEST(Intervals, JackknifeWidensWhenTheModelIsWrong) {
  const auto cfg = testing::acceptance_grid();
  testing::MisspecTruth right;
  Dataset d;
  d.points = testing::misspec_points(right, cfg, 0.01, 0.0, 9);
  AnalyzeOptions o;
  o.model = "cpu+mem+io";
  const ModelReport ok = analyze(d, o);
  EXPECT_EQ(ok.interval_method, "jackknife");
  ASSERT_EQ(ok.elasticities.size(), 2u);
  testing::MisspecTruth curved;
  curved.w_cpu = 8, curved.w_curve = 20;
  d.points = testing::misspec_points(curved, cfg, 0.01, 0.0, 9);
  const ModelReport wrong = analyze(d, o);
  const Elasticity& e = wrong.elasticities[0];
  ASSERT_EQ(e.rate, Rate::cpu_ghz);
  EXPECT_GT(e.high - e.low, e.cov_high - e.cov_low) << "jackknife " << e.low << ".." << e.high << " covariance "
                                                    << e.cov_low << ".." << e.cov_high;
  for (const auto& t : wrong.terms) EXPECT_TRUE(std::isfinite(t.jk_stderr));
}

// Acceptance: predict at 9.5 GHz / 20,000 GB/s on a model measured at 1.2-3 GHz / 60-120 GB/s is
// marked, widened and not ok.
TEST(Extrapolation, FarOutsideTheMeasuredRangeIsMarkedWidenedAndNotOk) {
  const auto cfg = testing::grid({1.2, 1.8, 2.4, 3.0}, {60, 90, 120});
  NoiseSpec n;
  n.rel_sigma = 0.005, n.reps = 2;
  const ModelReport m = analyze(assemble(testing::generate({24, 600, 1}, cfg, n)), {});
  ASSERT_EQ(m.verdict.word, "ok") << joined(m.verdict.reasons);
  const Prediction inside = predict(m, system("inside", 2.0, 100));
  EXPECT_TRUE(inside.extrapolated.empty());
  EXPECT_EQ(inside.verdict, "ok");
  const Prediction far = predict(m, system("far", 9.5, 20000));
  EXPECT_EQ(far.extrapolated, (std::vector<std::string>{"cpu_ghz", "mem_gbs"}));
  EXPECT_EQ(far.verdict, "unreliable");
  EXPECT_TRUE(any_contains(far.verdict_reasons, "extrapolated")) << joined(far.verdict_reasons);
  EXPECT_GT(far.fit_high_s - far.fit_low_s, 1.5 * (far.cov_high_s - far.cov_low_s));
  EXPECT_GE(far.fit_high_s - far.predicted_s, far.predicted_s * kMinModelError * far.extrapolation);
  const Prediction near = predict(m, system("near", 3.9, 100));  // 1.3x beyond 3 GHz: one step down
  EXPECT_EQ(near.verdict, "caution");
  std::vector<Prediction> both{inside, far};
  rank_predictions(both);
  const std::string table = render_predictions(m, both, "table");
  EXPECT_NE(table.find("EXTRAPOLATED"), std::string::npos) << table;
  EXPECT_NE(table.find("rests on extrapolated predictions (far)"), std::string::npos) << table;
  const std::string json = render_predictions(m, both, "json");
  EXPECT_NE(json.find("\"extrapolated\": true"), std::string::npos);
  // An unreliable model stays unreliable a little outside its range: a step down from unreliable
  // is never a step up to caution (a LAMMPS network model's 2x-faster prediction read "caution").
  ModelReport bad = m;
  bad.verdict.word = "unreliable";
  const Prediction near_bad = predict(bad, system("near", 3.9, 100));
  EXPECT_EQ(near_bad.verdict, "unreliable");
  std::vector<Prediction> one{near_bad};
  const std::string bad_table = render_predictions(bad, one, "table");
  // The verdict and the extrapolation columns of the candidate's row.
  EXPECT_TRUE(std::regex_search(bad_table, std::regex("near +.*UNRELIABLE +EXTRAPOLATED 1\\.30x cpu_ghz"))) << bad_table;
}

}  // namespace
}  // namespace hpcsens::model

namespace hpcsens::model {
namespace {

// Above kExactLooMaxPoints the leave-one-out fits come in closed form from the full fit: for least
// squares with every work off its bound they must equal real refits.
TEST(LeaveOneOut, ClosedFormMatchesRefitsAboveTheThreshold) {
  std::vector<Config> cfg;
  for (int i = 0; i < 150; ++i)  // 150 distinct clocks in 1-3 GHz and bandwidths in 20-120 GB/s
    cfg.push_back({1.0 + 2.0 * ((i * 37) % 150) / 150.0, 20.0 + 100.0 * ((i * 61) % 150) / 150.0});
  NoiseSpec n;
  n.rel_sigma = 0.01, n.seed = 21;
  const auto pts = testing::generate_points({24, 600, 2}, cfg, n);
  const auto times = times_of(pts);
  const ModelSpec spec = parse_model_spec("cpu+mem+io");
  const FitResult all = fit_model(spec, pts, times, {});
  const LeaveOneOut loo = leave_one_out(spec, pts, times, {}, all.params);
  ASSERT_TRUE(loo.closed_form);
  for (size_t i : {0u, 17u, 64u, 149u}) {
    std::vector<Point> train;
    std::vector<double> t;
    for (size_t j = 0; j < pts.size(); ++j)
      if (j != i) train.push_back(pts[j]), t.push_back(times[j]);
    const FitResult f = fit_model(spec, train, t, {});
    const double refit_err = (model_time(spec, f.params, pts[i]) - times[i]) / times[i];
    EXPECT_NEAR(loo.err[i], refit_err, 1e-6) << "configuration " << i;
    for (size_t k = 0; k < f.params.size(); ++k) EXPECT_NEAR(loo.params[i][k], f.params[k], 1e-5 * (1 + f.params[k]));
  }
}

}  // namespace
}  // namespace hpcsens::model
