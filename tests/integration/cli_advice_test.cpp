// Common mistakes, made with the real hpcsens binary: each is refused with exit status 2 in one
// line that says what went wrong AND what to do next (cli/advice.cpp, cli/usage.cpp).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "minimal_record.h"
#include "process.h"
#include "record/run_record.h"

namespace hpcsens::testing {
namespace {
namespace fs = std::filesystem;

const std::string kHpcsens = HPCSENS_BIN;

struct Mistake {
  std::string what;                // the mistake, for the failure message
  std::vector<std::string> args;   // after "hpcsens"; "@" is replaced by the test's directory
  std::vector<std::string> says;   // the error line holds each of these
};

class CliAdvice : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("hpcsens-advice-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "plain");
    // A record of a plain `hpcsens run`: no config.cpu_ghz / mem_gbs.
    write_minimal_record(dir_ / "plain" / "run.json");
    fs::create_directories(dir_ / "two");
    fs::create_directories(dir_ / "empty");
    write_minimal_record(dir_ / "two" / "a.json");
    write_minimal_record(dir_ / "two" / "b.json");
    std::ofstream(dir_ / "model.json") << R"({"schema": "hpcsens.model.v1", "model": "cpu+fixed"})";
    std::ofstream(dir_ / "runs.csv") << "label,cpu_ghz,mem_gbs,time_s\na,2.0,100,10\nb,3.0,100,8\n";
    std::ofstream(dir_ / "one.csv") << "label,cpu_ghz,mem_gbs,time_s\na,2.0,100,10\na,2.0,100,10.1\n";
    std::ofstream(dir_ / "good.csv") << "label,cpu_ghz,mem_gbs,time_s\na,1.2,100,20\nb,1.8,100,14.5\nc,2.4,100,11.6\n"
                                        "d,3.0,100,10\n";
    ASSERT_EQ(run_process({kHpcsens, "fit", (dir_ / "good.csv").string(), "-o", (dir_ / "good.model.json").string()}, 60)
                  .exit_status, 0);
    std::ofstream(dir_ / "mix.yaml") << "applications:\n  - {name: a, model: good.model.json, weight: 1}\n";
    std::ofstream(dir_ / "sys.yaml") << "systems:\n  - {name: x, cpu_ghz: 3.0, mem_gbs: 100, nodes: 10}\n";
  }
  void TearDown() override { fs::remove_all(dir_); }

  void expect_advice(const Mistake& m) {
    std::vector<std::string> argv = {kHpcsens};
    for (auto a : m.args) {
      if (const auto at = a.find('@'); at != std::string::npos) a.replace(at, 1, dir_.string());
      argv.push_back(a);
    }
    const auto r = run_process(argv, 60);
    EXPECT_EQ(r.exit_status, 2) << m.what << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << m.what << ": " << r.err;
    EXPECT_EQ(r.err.rfind("hpcsens: error: ", 0), 0u) << m.what << ": " << r.err;
    for (const auto& s : m.says) EXPECT_NE(r.err.find(s), std::string::npos) << m.what << ": wants '" << s << "' in " << r.err;
  }

  fs::path dir_;
};

TEST_F(CliAdvice, FifteenCommonMistakesSayWhatToDoNext) {
  const std::vector<Mistake> mistakes = {
      {"fit on records of a plain hpcsens run", {"fit", "@/plain"}, {"config.cpu_ghz", "run hpcsens sweep SPEC.yaml"}},
      {"report of a model fit did not write", {"report", "@/model.json"},
       {"model.json: field 'terms' is missing", "write one with 'hpcsens fit"}},
      {"report of a CSV file", {"report", "@/runs.csv"}, {"runs.csv", "hpcsens fit FILE.csv"}},
      {"report of a missing file", {"report", "@/nope.json"}, {"nope.json", "check the path"}},
      {"a sweep directory whose model.json fit did not write", {"report", "@"},
       {"/model.json: field 'terms' is missing", "write one with 'hpcsens fit"}},
      {"a directory of two run records", {"report", "@/two", "--format", "html"},
       {"holds 2 run records (a.json, b.json)", "name the one to report"}},
      {"a directory without a run record", {"report", "@/empty"}, {"holds no run record", "give a record file"}},
      {"--summary with json", {"report", "@/plain/run.json", "--summary", "--format", "json"},
       {"--summary", "only with --format table or md", "its 'answer' object"}},
      {"--table with html", {"report", "@/plain/run.json", "--table", "ranks", "--format", "html"},
       {"--table", "only with --format csv"}},
      {"an unknown csv table", {"report", "@/plain/run.json", "--format", "csv", "--table", "bogus"},
       {"--table", "bogus", "msg_sizes"}},
      {"an unknown option of run", {"run", "--bogus", "--", "true"},
       {"unknown option --bogus", "usage: hpcsens run [-o DIR]"}},
      {"an unknown option of fit", {"fit", "@/runs.csv", "--bogus"},
       {"hpcsens fit: unknown option --bogus", "usage: hpcsens fit INPUTS..."}},
      {"a format fit does not write", {"fit", "@/runs.csv", "--format", "pdf"}, {"'pdf'", "use table|json|csv|md"}},
      {"a format doctor does not write", {"doctor", "--format", "csv"}, {"'csv'", "use table|json"}},
      {"--table without csv", {"report", "@/plain/run.json", "--table", "ranks"}, {"--table", "only with --format csv"}},
      {"predict without a target", {"predict", "@/good.model.json"}, {"give either --system FILE.yaml"}},
      {"rank by price without prices", {"predict", "--mix", "@/mix.yaml", "--system", "@/sys.yaml", "--rank-by", "per-price"},
       {"system 'x' gives no nodes and price", "or rank by speedup"}},
      {"an unknown criterion", {"predict", "--mix", "@/mix.yaml", "--system", "@/sys.yaml", "--rank-by", "cheapest"},
       {"'cheapest'", "speedup, throughput, per-price or per-watt"}},
      {"--rank-by without a mix", {"predict", "@/good.model.json", "--cpu-ghz", "2", "--mem-gbs", "100", "--rank-by",
                                   "speedup"}, {"--rank-by", "goes with --mix"}},
      {"the job's command without --", {"run", "mpirun", "-np", "2", "./app"}, {"put -- before the job's command"}},
      {"no subcommand", {}, {"give a subcommand: run, report, sweep, fit, predict or doctor"}},
      {"a sweep without a spec", {"sweep"}, {"needs a spec file"}},
      {"a design of one configuration", {"fit", "@/one.csv"}, {"1 distinct configuration", "add configurations at other core clocks"}},
  };
  ASSERT_GE(mistakes.size(), 15u);
  for (const auto& m : mistakes) expect_advice(m);
}

// `hpcsens run -o x -- mpirun -np 2 ./app` once said "arguments were not expected: ./app 2 -np
// mpirun": -o is now the output directory, as in every other subcommand, and --out its alias.
TEST_F(CliAdvice, RunTakesDashOAndOutAlike) {
  for (const char* flag : {"-o", "--output", "--out"}) {
    const auto out = dir_ / (std::string("out") + flag);
    const auto r = run_process({kHpcsens, "run", flag, out.string(), "--", "/bin/true"}, 60);
    EXPECT_EQ(r.err.find("not expected"), std::string::npos) << flag << ": " << r.err;
    EXPECT_EQ(r.err.find("unknown option"), std::string::npos) << flag << ": " << r.err;
    EXPECT_TRUE(fs::is_directory(out)) << flag;
  }
}

// A program missing from the launch line is said before the job starts, so a launcher's exit status
// 132 is not read as "a rank killed by signal 4".
TEST_F(CliAdvice, MissingProgramIsSaidBeforeTheJob) {
  const auto r = run_process({kHpcsens, "run", "-o", (dir_ / "o").string(), "--", "/bin/true", "./no-such-app"}, 60);
  EXPECT_NE(r.err.find("hpcsens: warning: ./no-such-app does not exist in "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("a missing program, not a signal"), std::string::npos) << r.err;
}

// --format names are the same everywhere: text is table, in every subcommand that writes tables.
TEST_F(CliAdvice, TextAndTableAreOneFormatEverywhere) {
  for (const char* f : {"text", "table"}) {
    EXPECT_EQ(run_process({kHpcsens, "fit", (dir_ / "good.csv").string(), "--format", f}, 60).exit_status, 0) << f;
    EXPECT_EQ(run_process({kHpcsens, "report", (dir_ / "plain" / "run.json").string(), "--format", f}, 60).exit_status, 0)
        << f;
    EXPECT_EQ(run_process({kHpcsens, "predict", (dir_ / "good.model.json").string(), "--cpu-ghz", "2", "--format", f}, 60)
                  .exit_status, 0) << f;
    EXPECT_NE(run_process({kHpcsens, "doctor", "--format", f}, 60).exit_status, 2) << f;
  }
}

}  // namespace
}  // namespace hpcsens::testing
