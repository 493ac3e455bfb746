// One answer layout and one set of caveat sentences (common/answer.h): a prediction, a mix and the
// model's own answer (report MODEL.json) on the same unreliable model say its verdict in the same
// sentence, a prediction and a mix say the same extrapolation in the same words, and text,
// Markdown and the page lay each caveat out the same way. Fixture: a model fitted to a known truth
// on the acceptance grid (1.2-3 GHz x 15-60 GB/s); a candidate at 240 GB/s, 4x the measured top.
#include <gtest/gtest.h>

#include <algorithm>

#include "common/answer.h"
#include "model/analysis.h"
#include "model/fit_output.h"
#include "model/mix.h"
#include "model/predict.h"
#include "model/predict_answer.h"
#include "report/headline.h"
#include "report/html_page.h"
#include "report/html_report.h"
#include "report/html_static.h"
#include "report/model_view.h"
#include "tests/model/ground_truth.h"

namespace hpcsens::report {
namespace {

using nlohmann::json;

model::ModelReport fitted_model() {
  model::Dataset d;
  d.points = model::testing::generate_points({24.0, 600.0, 3.0}, model::testing::acceptance_grid(), {0.01, 3, 1});
  return model::analyze(d, {});
}

model::SystemSpec candidate(const std::string& name, double cpu, double mem) {
  model::SystemSpec s;
  s.name = name, s.cpu_ghz = cpu, s.mem_gbs = mem;
  return s;
}

std::vector<model::Prediction> ranked(const model::ModelReport& m) {
  std::vector<model::Prediction> out{model::predict(m, candidate("inside", 3.0, 60)),
                                     model::predict(m, candidate("far-mem", 3.0, 240))};
  model::rank_predictions(out);
  return out;
}

model::MixResult one_app_mix(const model::ModelReport& m, model::Mix& mix) {
  mix.path = "mix.yaml";
  mix.apps.push_back({"solver", "solver.model.json", "mix.yaml:2", 1.0, m});
  return model::evaluate_mix(mix, {candidate("inside", 3.0, 60), candidate("far-mem", 3.0, 240)});
}

bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

// The caveat as the page draws it, from the static HTML of a page's answer.
std::string page_html(const json& page) {
  json charts = json::array();
  return html::static_body(page, charts);
}

TEST(AnswerWords, PredictionMixAndModelAnswerSayAnUnreliableVerdictInOneSentence) {
  model::ModelReport m = fitted_model();
  m.verdict.word = "unreliable";
  m.verdict.reasons = {"the core clock had no effect on the time", "R² 0.31"};
  const std::string sentence =
      "The model's verdict is unreliable: the core clock had no effect on the time and R² 0.31.";
  ASSERT_EQ(answer::model_verdict_caveat(m.verdict.word, m.verdict.reasons), sentence);

  const auto preds = ranked(m);
  const model::Answer predicted = model::prediction_answer(m, preds, "app.model.json");
  model::Mix mix;
  const model::MixResult mixed = one_app_mix(m, mix);
  const json file = json::parse(model::render_fit(m, "json"));
  ASSERT_EQ(file["verdict"], "unreliable");
  const Answer own = model_answer(file, rate_roles(file), {"app.model.json", ""});

  EXPECT_TRUE(has(predicted.caveats, sentence)) << json(predicted.caveats);
  EXPECT_TRUE(has(mixed.answer.caveats, "Application 'solver': " + sentence)) << json(mixed.answer.caveats);
  EXPECT_TRUE(has(own.caveats, sentence)) << json(own.caveats);
  // Each reason said once: not in the model answer's headline as well.
  EXPECT_EQ(own.headline.find("R² 0.31"), std::string::npos) << own.headline;

  // One layout: the same "Caveat:" line in Markdown and on the page for all three.
  const std::string md = "> Caveat: " + sentence + "\n";
  EXPECT_NE(model::answer_markdown(predicted).find(md), std::string::npos);
  EXPECT_NE(model::answer_markdown(mixed.answer).find("> Caveat: Application 'solver': " + sentence + "\n"),
            std::string::npos);
  EXPECT_NE(answer_markdown(own).find(md), std::string::npos) << answer_markdown(own);
  const std::string drawn = "Caveat: " + html::escape(sentence);
  EXPECT_NE(page_html(prediction_page(json::parse(model::render_predictions(m, preds, "json", "app.model.json")),
                                      "p.json")).find(drawn), std::string::npos);
  EXPECT_NE(page_html(mix_page(json::parse(model::render_mix(mixed, "json")), "mix.json"))
                .find("Caveat: Application &#39;solver&#39;: " + html::escape(sentence)),
            std::string::npos);
  EXPECT_NE(page_html(model_page(file, "app.model.json")).find(drawn), std::string::npos);
  // Text wraps at 120 columns, but the words are the same: joined back, the sentence is there.
  for (std::string text : {model::answer_text(predicted), answer_text(own)}) {
    for (std::size_t at; (at = text.find("\n    ")) != std::string::npos;) text.replace(at, 5, " ");
    EXPECT_NE(text.find("  Caveat: " + sentence), std::string::npos) << text;
  }
}

TEST(AnswerWords, PredictionAndMixSayAnExtrapolatedProjectionInTheSameWords) {
  const model::ModelReport m = fitted_model();
  ASSERT_EQ(m.verdict.word, "ok");
  const std::string facts = "verdict unreliable, extrapolated (mem_gbs 240 GB/s is 4.00x beyond the measured 15 to "
                            "60 GB/s).";
  const model::Answer predicted = model::prediction_answer(m, ranked(m), "app.model.json");
  model::Mix mix;
  const model::MixResult mixed = one_app_mix(m, mix);
  EXPECT_TRUE(has(predicted.caveats, "far-mem: " + facts)) << json(predicted.caveats);
  EXPECT_TRUE(has(mixed.answer.caveats, "far-mem/solver: " + facts)) << json(mixed.answer.caveats);
  EXPECT_TRUE(has(predicted.caveats, "The ranking rests on extrapolated predictions (far-mem)."));
  EXPECT_TRUE(has(mixed.answer.caveats, "The ranking rests on extrapolated predictions (far-mem/solver)."));
  // The headlines name the same extrapolation with the same clause.
  const std::string clause = "extrapolated (mem_gbs 240 GB/s is 4.00x beyond the measured 15 to 60 GB/s)";
  EXPECT_NE(predicted.headline.find("it is " + clause), std::string::npos) << predicted.headline;
  EXPECT_NE(mixed.answer.headline.find("solver is " + clause), std::string::npos) << mixed.answer.headline;
  // Advice with its figure: one line on the page and in Markdown, its own "because:" line in text.
  ASSERT_FALSE(predicted.advice.empty());
  const answer::Advice& first = predicted.advice[0];
  EXPECT_EQ(answer::advice_line(first), first.text + " (because: " + first.figure + ")");
  EXPECT_NE(model::answer_markdown(predicted).find("- " + answer::advice_line(first) + "\n"), std::string::npos);
  EXPECT_NE(model::answer_text(predicted).find("\n    because: far-mem: mem_gbs 240 GB/s"), std::string::npos)
      << model::answer_text(predicted);
}

// The text layout wraps at the terminal's width and never cuts a word (a path stays whole).
TEST(AnswerWords, TextWrapsAtTheWidthAndKeepsLongWordsWhole) {
  answer::Answer a;
  const std::string path = "/" + std::string(130, 'p') + "/model.json";
  a.headline = std::string(50, 'h') + " " + std::string(50, 'h') + " " + std::string(50, 'h');
  a.caveats = {"see " + path};
  a.advice = {{"hpcsens report " + path, "figure"}};
  const std::string t = answer::text(a);
  EXPECT_EQ(t, "Answer: " + std::string(50, 'h') + " " + std::string(50, 'h') + "\n" + std::string(50, 'h') +
                   "\n  Caveat: see\n    " + path + "\n  - hpcsens report\n    " + path +
                   "\n    because: figure\n\n");
}

}  // namespace
}  // namespace hpcsens::report
