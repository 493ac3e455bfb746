#include "cli/advice.h"

#include <vector>

namespace hpcsens::cli {
namespace {

struct Rule {
  const char* sub;    // the subcommand it applies to; "" for any
  const char* words;  // the message contains these
  const char* advice;
};

// Order matters: the first rule that matches gives the advice.
const std::vector<Rule>& rules() {
  static const std::vector<Rule> table = {
      {"fit", "'config.cpu_ghz'", "a plain hpcsens run records no CPU rate: run hpcsens sweep SPEC.yaml (it measures "
                                  "cpu_ghz and mem_gbs at each point), or give a CSV label,cpu_ghz,mem_gbs,time_s"},
      {"fit", "'config.mem_gbs'", "a plain hpcsens run records no memory bandwidth: run hpcsens sweep SPEC.yaml, or "
                                  "give a CSV label,cpu_ghz,mem_gbs,time_s"},
      {"report", "'hpcsens.model.v1', expected", "this is a model: hpcsens report MODEL.json (--format text, md, json or "
                                                 "html) shows it, hpcsens predict MODEL.json --system S.yaml projects it"},
      {"report", "'hpcsens.prediction.v1', expected", "this is a prediction: hpcsens report FILE (--format text, md, csv, json "
                                                      "or html) shows it; --table is for run records"},
      {"report", "'hpcsens.mix.v1', expected", "this is a workload mix: hpcsens report FILE (--format text, md, csv, "
                                               "json or html) shows it; --table is for run records"},
      {"report", "expected 'hpcsens.run.v1'", "hpcsens report reads run records (hpcsens run prints their path as "
                                              "'hpcsens: record: PATH'), models, predictions, mixes and sweep "
                                              "directories"},
      {"report", "does not hold a JSON object", "hpcsens report reads the JSON files hpcsens writes (a CSV of runs goes to "
                                       "hpcsens fit FILE.csv)"},
      {"report", "not valid JSON", "hpcsens report reads the JSON files hpcsens writes, whole (a record cut short: "
                                   "the job's partial files are assembled by hpcsens run)"},
      {"report", "is a directory, not a run record", "a sweep directory is drawn with hpcsens report DIR --format "
                                                      "html -o sweep.html"},
      {"report", "is not a sweep directory", "give a run record, or the directory hpcsens sweep wrote (-o DIR)"},
      {"", "No such file or directory", "check the path (hpcsens run prints the record's path as 'hpcsens: record: "
                                        "PATH'; hpcsens sweep writes DIR/records/ and DIR/model.json)"},
      {"fit", "distinct", "sweep more rates: at least three CPU clocks (or memory configurations) per varied rate"},
      {"fit", "identif", "sweep more rates: at least three CPU clocks (or memory configurations) per varied rate"},
      {"fit", "no run records", "give the records/ directory of a sweep, run records, or a CSV "
                                "label,cpu_ghz,mem_gbs,time_s"},
      {"predict", "cannot read", "give the model file hpcsens fit -o FILE wrote"},
      {"", "is not a regular file", "give a file hpcsens or you wrote, not a device or directory"},
      {"", "Permission denied", "run as a user who may read it, or copy it somewhere readable"},
  };
  return table;
}

bool says_what_to_do(const std::string& m) {
  for (const char* w : {"(use ", "give ", "run hpcsens", " -- ", "usage:", "add them", "put --", "goes with", "only with"})
    if (m.find(w) != std::string::npos) return true;
  return false;
}

}  // namespace

std::string advice_for(const std::string& sub, const std::string& message) {
  if (says_what_to_do(message)) return "";
  for (const auto& r : rules())
    if ((r.sub[0] == '\0' || sub == r.sub) && message.find(r.words) != std::string::npos)
      return std::string("; ") + r.advice;
  return "";
}

}  // namespace hpcsens::cli
